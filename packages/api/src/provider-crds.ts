/**
 * The karpenter.sh CRDs as a cloud provider installs them. Upstream's providers ship the core
 * NodePool, NodeClaim and NodeOverlay CRDs with extra `x-kubernetes-validations` of their own
 * (AWS restricts the `karpenter.k8s.aws` label domain to its well-known labels; Azure restricts
 * `karpenter.azure.com` and `kubernetes.azure.com` the same way and forbids a few AKS label
 * keys). These functions add such rules to our CRDs, so offline validation can judge objects as
 * a cluster with that provider's CRDs does.
 */
import { crdDocument, type KarpenterKind } from './crds.js';
import { crdValidator, type CrdValidator } from './validation/crd-validator.js';
import {
  NodeClaimDeprecatedFields,
  NodePoolDeprecatedFields,
  RenamedValues,
  UnsupportedVersions,
} from './validation/deprecated-fields.js';
import type { CelRule } from './validation/schema-nodes.js';
import { isPlainObject } from './validation/schema-nodes.js';

/** Rules a provider adds to the karpenter.sh CRDs. */
export interface ProviderCrdRules {
  /** The provider, for messages and caching (`azure`, `aws`). */
  readonly provider: string;
  /** Rules on a NodePool's `spec.template.metadata.labels` (`self` is the label map). */
  readonly labels: readonly CelRule[];
  /** Rules on each requirement `key` of NodePools, NodeClaims and NodeOverlays (`self` is the key). */
  readonly requirementKey: readonly CelRule[];
}

/** Where, in each kind's schema, the requirement key and the template labels are. */
const REQUIREMENT_KEY: Record<KarpenterKind, readonly string[]> = {
  NodePool: ['spec', 'template', 'spec', 'requirements', '[]', 'key'],
  NodeClaim: ['spec', 'requirements', '[]', 'key'],
  NodeOverlay: ['spec', 'requirements', '[]', 'key'],
};
const LABELS = ['spec', 'template', 'metadata', 'labels'];

/**
 * The CRD document of a karpenter.sh kind with a provider's rules appended to each served
 * version. The document is a copy; its name and group are unchanged.
 */
export function providerKarpenterCrd(
  kind: KarpenterKind,
  rules: ProviderCrdRules,
): Record<string, unknown> {
  const doc = structuredClone(crdDocument(kind));
  const spec = doc.spec as { versions?: unknown[] };
  for (const version of spec.versions ?? []) {
    if (!isPlainObject(version) || !isPlainObject(version.schema)) continue;
    const root = version.schema.openAPIV3Schema;
    appendRules(root, REQUIREMENT_KEY[kind], rules.requirementKey);
    if (kind === 'NodePool') appendRules(root, LABELS, rules.labels);
  }
  return doc;
}

const cache = new Map<string, CrdValidator[]>();

/**
 * Validators for NodePool, NodeClaim and NodeOverlay with a provider's rules, built once per
 * provider. Pass them as `validate(obj, {validators})`: they take precedence over the built-in
 * ones.
 */
export function providerKarpenterValidators(rules: ProviderCrdRules): CrdValidator[] {
  let validators = cache.get(rules.provider);
  if (!validators) {
    validators = (['NodePool', 'NodeClaim', 'NodeOverlay'] as const).map((kind) =>
      crdValidator(providerKarpenterCrd(kind, rules), {
        deprecatedFields:
          kind === 'NodePool'
            ? NodePoolDeprecatedFields
            : kind === 'NodeClaim'
              ? NodeClaimDeprecatedFields
              : {},
        renamedValues: kind === 'NodePool' ? RenamedValues : {},
        unsupportedVersions: UnsupportedVersions,
      }),
    );
    cache.set(rules.provider, validators);
  }
  return validators;
}

/**
 * A CEL rule that keeps a label domain to the listed keys: for a map of labels
 * (`self.all(x, …)`) or for one key (`self in […] || …`), in the form upstream's providers use.
 */
export function labelDomainRule(
  domain: string,
  allowed: Iterable<string>,
  on: 'labels' | 'key',
  message: string,
): CelRule {
  const list = `[${[...allowed].map((k) => JSON.stringify(k)).join(', ')}]`;
  const subject = on === 'labels' ? 'x' : 'self';
  const test = `${subject} in ${list} || !${subject}.find("^([^/]+)").endsWith(${JSON.stringify(domain)})`;
  return { rule: on === 'labels' ? `self.all(x, ${test})` : test, message };
}

/** A CEL rule that forbids one label key: in a map of labels, or as a requirement key. */
export function forbiddenKeyRule(key: string, on: 'labels' | 'key', message: string): CelRule {
  const test = `${on === 'labels' ? 'x' : 'self'} != ${JSON.stringify(key)}`;
  return { rule: on === 'labels' ? `self.all(x, ${test})` : test, message };
}

function appendRules(root: unknown, path: readonly string[], rules: readonly CelRule[]): void {
  if (rules.length === 0) return;
  let node: unknown = root;
  for (const segment of path) {
    if (!isPlainObject(node)) return;
    node =
      segment === '[]'
        ? node.items
        : isPlainObject(node.properties)
          ? node.properties[segment]
          : undefined;
  }
  if (!isPlainObject(node)) {
    // The core CRD changed shape: a provider rule with nowhere to go must not pass silently.
    throw new Error(`karpenter.sh CRD has no schema node at ${path.join('.')}`);
  }
  const existing = Array.isArray(node['x-kubernetes-validations'])
    ? (node['x-kubernetes-validations'] as CelRule[])
    : [];
  node['x-kubernetes-validations'] = [...existing, ...rules];
}
