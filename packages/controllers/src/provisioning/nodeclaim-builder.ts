/**
 * Turns a scheduler result into a NodeClaim object (upstream `nodeclaimtemplate.go` `ToNodeClaim`).
 */
import type { NodeClaim, NodePool, NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import {
  Annotations,
  KarpenterV1,
  Labels,
  nodeClassLabelKey,
  nodePoolHash,
  NodePoolHashVersion,
  WellKnownLabels,
} from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { formatResourceList, type NewNodeClaim } from '@karpenter-ts/scheduling';

/** Requirement keys that exist only during the scheduling simulation and never reach a NodeClaim. */
const SIMULATION_ONLY_KEYS: ReadonlySet<string> = new Set([
  Labels.Registered,
  Labels.Initialized,
  Labels.Hostname,
]);

/** Options of {@link buildNodeClaim}. */
export interface BuildNodeClaimOptions {
  /** Provider labels that count as well known (not copied into NodeClaim labels from requirements). */
  readonly extraWellKnownLabels?: ReadonlySet<string>;
  /** Precomputed `nodePoolHash(nodePool)` (it is the same for every claim of the pool). */
  readonly nodePoolHash?: string;
}

/**
 * The NodeClaim to create for one scheduler result:
 * - `generateName: <nodepool>-`, owner reference to the NodePool (blockOwnerDeletion);
 * - labels: template labels, `karpenter.sh/nodepool`, the NodeClass label, and each custom
 *   (not well-known) requirement key pinned to a single value;
 * - annotations: template annotations, the NodePool hash and hash version,
 *   `nodeclaim-min-values-relaxed` when the requirements carry minValues, and
 *   `karpenter.sh/price-overlay-applied` / `karpenter.sh/capacity-overlay-applied: "true"` when a
 *   NodeOverlay changed the price or capacity of any of its instance-type options (upstream);
 * - spec: the template's taints, startup taints, NodeClass, terminationGracePeriod and
 *   expireAfter; the result's requirements (instance types already cut to the cheapest ≤600,
 *   capacity type already narrowed by the scheduler) minus simulation-only keys; and
 *   `resources.requests` = pod requests plus the smallest daemonset overhead (quantities).
 */
export function buildNodeClaim(
  nodePool: NodePool,
  result: NewNodeClaim | NewNodeClaim<InstanceType>,
  options: BuildNodeClaimOptions = {},
): NodeClaim {
  const poolName = nodePool.metadata.name ?? '';
  const template = nodePool.spec.template;
  const spec = template.spec;
  const requirements: NodeSelectorRequirementWithMinValues[] = result.requirements
    .toNodeSelectorRequirements()
    .filter((r) => !SIMULATION_ONLY_KEYS.has(r.key));

  const labels: Record<string, string> = { ...(template.metadata?.labels ?? {}) };
  for (const [key, value] of Object.entries(result.requirements.labels())) {
    if (SIMULATION_ONLY_KEYS.has(key)) continue;
    if (WellKnownLabels.has(key) || options.extraWellKnownLabels?.has(key)) continue;
    labels[key] = value;
  }
  labels[Labels.NodePool] = poolName;
  labels[nodeClassLabelKey(spec.nodeClassRef)] = spec.nodeClassRef.name;

  const annotations: Record<string, string> = {
    ...(template.metadata?.annotations ?? {}),
    [Annotations.NodePoolHash]: options.nodePoolHash ?? nodePoolHash(nodePool),
    [Annotations.NodePoolHashVersion]: NodePoolHashVersion,
  };
  if (result.requirements.hasMinValues()) {
    annotations[Annotations.NodeClaimMinValuesRelaxed] = String(result.minValuesRelaxed);
  }
  const typeOptions = result.instanceTypeOptions as readonly Partial<InstanceType>[];
  if (typeOptions.some((it) => it.offerings?.some((o) => o.priceOverlayApplied === true))) {
    annotations[Annotations.PriceOverlayApplied] = 'true';
  }
  if (typeOptions.some((it) => it.capacityOverlayApplied === true)) {
    annotations[Annotations.CapacityOverlayApplied] = 'true';
  }

  return {
    apiVersion: KarpenterV1,
    kind: 'NodeClaim',
    metadata: {
      generateName: `${poolName}-`,
      labels,
      annotations,
      ownerReferences: [
        {
          apiVersion: KarpenterV1,
          kind: 'NodePool',
          name: poolName,
          uid: nodePool.metadata.uid ?? '',
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...(spec.taints !== undefined && spec.taints.length > 0 ? { taints: spec.taints } : {}),
      ...(spec.startupTaints !== undefined && spec.startupTaints.length > 0
        ? { startupTaints: spec.startupTaints }
        : {}),
      requirements,
      nodeClassRef: { ...spec.nodeClassRef },
      ...(spec.terminationGracePeriod !== undefined
        ? { terminationGracePeriod: spec.terminationGracePeriod }
        : {}),
      ...(spec.expireAfter !== undefined ? { expireAfter: spec.expireAfter } : {}),
      resources: { requests: formatResourceList(result.requests) },
    },
  };
}
