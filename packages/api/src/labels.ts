/**
 * Well-known labels, annotations, taints and finalizers of `karpenter.sh`, and the label
 * restriction rules upstream applies to NodePool labels and requirements (karpenter-core 1.6).
 */
import type { Taint } from './types/core.js';

/** Label keys Karpenter and Kubernetes use on nodes Karpenter manages. */
export const Labels = {
  /** NodePool that owns the node; set by Karpenter, forbidden in NodePool labels/requirements. */
  NodePool: 'karpenter.sh/nodepool',
  /** `on-demand`, `spot` or `reserved`. */
  CapacityType: 'karpenter.sh/capacity-type',
  /** `true` once the node registered. */
  Registered: 'karpenter.sh/registered',
  /** `true` once the node is initialized (ready, startup taints gone, resources registered). */
  Initialized: 'karpenter.sh/initialized',
  /** Opt-out (`true`) from Karpenter syncing NodeClaim taints onto the Node. */
  DoNotSyncTaints: 'karpenter.sh/do-not-sync-taints',
  TopologyZone: 'topology.kubernetes.io/zone',
  TopologyRegion: 'topology.kubernetes.io/region',
  InstanceType: 'node.kubernetes.io/instance-type',
  Arch: 'kubernetes.io/arch',
  OS: 'kubernetes.io/os',
  Hostname: 'kubernetes.io/hostname',
  WindowsBuild: 'node.kubernetes.io/windows-build',
  /** Set on nodes being terminated so cloud load balancers drain them. */
  ExcludeFromExternalLoadBalancers: 'node.kubernetes.io/exclude-from-external-load-balancers',
} as const;

/** Deprecated label keys and the key each is normalized to before use. */
export const NormalizedLabels: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': Labels.TopologyZone,
  'failure-domain.beta.kubernetes.io/region': Labels.TopologyRegion,
  'beta.kubernetes.io/arch': Labels.Arch,
  'beta.kubernetes.io/os': Labels.OS,
  'beta.kubernetes.io/instance-type': Labels.InstanceType,
};

/** Returns the normalized key for a (possibly deprecated) label key, e.g. `beta.kubernetes.io/arch` → `kubernetes.io/arch`. */
export function normalizeLabelKey(key: string): string {
  // Own-property check: a key such as "constructor" must not resolve to Object.prototype members.
  return Object.hasOwn(NormalizedLabels, key) ? (NormalizedLabels[key] as string) : key;
}

/**
 * Labels that may be requested by pods even when no NodePool defines them, and that are exempt
 * from the restricted-domain rule. Providers extend this set with their own labels through
 * {@link isRestrictedLabel}'s `extraWellKnown` argument.
 */
export const WellKnownLabels: ReadonlySet<string> = new Set([
  Labels.NodePool,
  Labels.TopologyZone,
  Labels.TopologyRegion,
  Labels.InstanceType,
  Labels.Arch,
  Labels.OS,
  Labels.CapacityType,
  Labels.WindowsBuild,
]);

/** Label domains reserved by Karpenter; keys in these domains (or their subdomains) are restricted unless well known. */
export const RestrictedLabelDomains: ReadonlySet<string> = new Set(['karpenter.sh']);

/**
 * Subdomains of restricted domains that are nevertheless allowed. Upstream keeps this list for
 * kubelet-settable namespaces; with only `karpenter.sh` restricted it never matches, but it is
 * part of the rule.
 */
export const LabelDomainExceptions: ReadonlySet<string> = new Set([
  'kops.k8s.io',
  'node.kubernetes.io',
  'node-restriction.kubernetes.io',
]);

/** Individual label keys users may not set or require (they would break provisioning). */
export const RestrictedLabels: ReadonlySet<string> = new Set([Labels.Hostname]);

/** The domain of a label key: the part before `/`, or `''` when there is none. */
export function labelDomain(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/**
 * Whether a label key may not be set on a NodePool template or used as a requirement key:
 * `kubernetes.io/hostname`, or a key in a restricted domain (`karpenter.sh`, its subdomains, and
 * any `extraDomains` a provider adds) that is not well known. Well-known labels (and
 * `extraWellKnown`) are never restricted by this check. Note `karpenter.sh/nodepool` is well
 * known yet still forbidden on NodePools by a separate rule (validation reports it).
 */
export function isRestrictedLabel(
  key: string,
  extra: { extraWellKnown?: Iterable<string>; extraDomains?: Iterable<string> } = {},
): boolean {
  if (WellKnownLabels.has(key)) return false;
  for (const k of extra.extraWellKnown ?? []) if (k === key) return false;
  if (RestrictedLabels.has(key)) return true;
  const domain = labelDomain(key);
  for (const exception of LabelDomainExceptions) if (domain.endsWith(exception)) return false;
  const domains = [...RestrictedLabelDomains, ...(extra.extraDomains ?? [])];
  return domains.some((d) => domain.endsWith(d));
}

/** Capacity type label values. */
export const CapacityType = {
  OnDemand: 'on-demand',
  Spot: 'spot',
  Reserved: 'reserved',
} as const;

/** One of {@link CapacityType}. */
export type CapacityTypeValue = (typeof CapacityType)[keyof typeof CapacityType];

/** All capacity type values. */
export const CapacityTypes: readonly CapacityTypeValue[] = ['on-demand', 'spot', 'reserved'];

/** Architecture label values Karpenter supports. */
export const Architectures = { AMD64: 'amd64', ARM64: 'arm64' } as const;

/** Annotation keys Karpenter reads or writes. */
export const Annotations = {
  /** Node: `"true"` blocks voluntary disruption. Pod: `"true"` or a positive Go duration from pod start. */
  DoNotDisrupt: 'karpenter.sh/do-not-disrupt',
  /** Static-drift hash of the NodePool template (see `nodePoolHash`). */
  NodePoolHash: 'karpenter.sh/nodepool-hash',
  /** Version of the hash algorithm; a mismatch re-baselines NodeClaims instead of drifting them. */
  NodePoolHashVersion: 'karpenter.sh/nodepool-hash-version',
  /** RFC 3339 time after which a deleting NodeClaim's node is terminated without waiting for drain. */
  NodeClaimTerminationTimestamp: 'karpenter.sh/nodeclaim-termination-timestamp',
  /** `true|false`: minValues were relaxed under the BestEffort policy. */
  NodeClaimMinValuesRelaxed: 'karpenter.sh/nodeclaim-min-values-relaxed',
  /** Comma list of DRA drivers the NodeClaim's pods requested. */
  RequestedDRADrivers: 'karpenter.sh/requested-dra-drivers',
  /** Set on NodeClaims whose price a NodeOverlay changed. */
  PriceOverlayApplied: 'karpenter.sh/price-overlay-applied',
  /** Set on NodeClaims whose capacity a NodeOverlay changed. */
  CapacityOverlayApplied: 'karpenter.sh/capacity-overlay-applied',
  /** Marks CapacityBuffer virtual pods. */
  CapacityBufferFakePod: 'karpenter.sh/capacity-buffer-fake-pod',
  /** Provider compatibility annotation. */
  CompatibilityProvider: 'compatibility.karpenter.sh/provider',
} as const;

/** Taints Karpenter places. */
export const Taints = {
  /** Applied while a node is being disrupted or terminated. */
  Disrupted: { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } satisfies Taint,
  /** Expected on new nodes until they register. */
  Unregistered: { key: 'karpenter.sh/unregistered', effect: 'NoExecute' } satisfies Taint,
} as const;

/**
 * Taints that come and go during node startup and are ignored on uninitialized managed nodes;
 * all must be gone before a NodeClaim is Initialized.
 */
export const KnownEphemeralTaints: readonly Taint[] = [
  { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
  { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
  Taints.Unregistered,
];

/**
 * Key prefixes of taints that are ephemeral whatever their value and effect (upstream v1.13):
 * the Node Readiness Controller taints a node with `readiness.k8s.io/<rule>` until its rule
 * passes.
 */
export const KnownEphemeralTaintKeyPrefixes: readonly string[] = ['readiness.k8s.io/'];

/**
 * Whether a taint is known to be ephemeral: one of {@link KnownEphemeralTaints} (same key, value
 * and effect), or any taint whose key starts with one of {@link KnownEphemeralTaintKeyPrefixes}.
 * Such taints are ignored for scheduling on uninitialized managed nodes and must be gone before
 * a NodeClaim is Initialized.
 */
export function isKnownEphemeralTaint(taint: Taint): boolean {
  if (KnownEphemeralTaintKeyPrefixes.some((p) => taint.key.startsWith(p))) return true;
  return KnownEphemeralTaints.some(
    (e) =>
      e.key === taint.key && e.effect === taint.effect && (e.value ?? '') === (taint.value ?? ''),
  );
}

/** Finalizers Karpenter sets. */
export const Finalizers = {
  /** On NodeClaims and Nodes: cleanup (drain, instance deletion) before removal. */
  Termination: 'karpenter.sh/termination',
} as const;

/** The upstream hash-version annotation value (Go hashstructure v2). */
export const UpstreamNodePoolHashVersion = 'v3';

/**
 * The label Karpenter puts on nodes naming their NodeClass: `<group>/<lowercase kind>`, e.g.
 * `karpenter.azure.com/aksnodeclass` (value: the NodeClass name).
 */
export function nodeClassLabelKey(ref: { group: string; kind: string }): string {
  return `${ref.group}/${ref.kind.toLowerCase()}`;
}
