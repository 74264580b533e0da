/**
 * The NodePool static-drift hash (karpenter-core 1.7). A NodeClaim whose
 * `karpenter.sh/nodepool-hash` differs from its NodePool's is Drifted.
 *
 * Inputs, as upstream: the template's labels, annotations, taints, startupTaints, nodeClassRef,
 * terminationGracePeriod and expireAfter (requirements and disruption budgets excluded);
 * lists are treated as sets (order does not matter); zero values (empty strings, lists, maps,
 * unset fields) are the same as absent. The template is defaulted first, so a manifest without
 * `expireAfter` hashes like the stored object with `720h`.
 *
 * Upstream hashes Go structs with hashstructure v2, which we cannot reproduce bit for bit, so
 * our hash carries its own version, {@link NodePoolHashVersion}. When a controller sees a
 * NodePool whose hash-version annotation differs from its own it re-baselines the NodeClaims
 * (rewrites their hash and version) instead of treating the difference as drift, so switching
 * from upstream Karpenter to karpenter-ts does not roll every node.
 */
import { karpenterValidator } from './crds.js';
import type { NodePool } from './types/nodepool.js';

/** Our hash-version annotation value; deliberately not upstream's `v3`. */
export const NodePoolHashVersion = 'ts-v1';

/**
 * Hash of a NodePool's drift-relevant template fields, as a decimal string of an unsigned 64-bit
 * FNV-1a over a canonical JSON form. Deterministic across processes and platforms.
 */
export function nodePoolHash(nodePool: NodePool): string {
  const defaulted = karpenterValidator('NodePool').applyDefaults(nodePool);
  const template = defaulted.spec?.template;
  const spec = template?.spec;
  const input = {
    labels: template?.metadata?.labels,
    annotations: template?.metadata?.annotations,
    taints: spec?.taints,
    startupTaints: spec?.startupTaints,
    nodeClassRef: spec?.nodeClassRef,
    terminationGracePeriod: spec?.terminationGracePeriod,
    expireAfter: spec?.expireAfter,
  };
  return fnv1a64(canonical(input) ?? '').toString(10);
}

/** Canonical JSON: sorted keys, zero values dropped, arrays sorted as sets; `undefined` for zero. */
function canonical(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '' || value === 0 || value === false)
    return undefined;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    const parts = value.map(canonical).filter((p): p is string => p !== undefined);
    if (parts.length === 0) return undefined;
    return `[${[...new Set(parts)].sort().join(',')}]`;
  }
  if (typeof value === 'object') {
    const parts = Object.keys(value)
      .sort()
      .flatMap((k) => {
        const c = canonical((value as Record<string, unknown>)[k]);
        return c === undefined ? [] : [`${JSON.stringify(k)}:${c}`];
      });
    return parts.length === 0 ? undefined : `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

function fnv1a64(text: string): bigint {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash;
}
