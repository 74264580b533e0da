/**
 * Test builders: valid objects to start from, and a helper that changes one field.
 */
import type { NodeClaim, NodeOverlay, NodePool } from '../src/index.js';

/** A minimal valid NodePool (Azure NodeClass). */
export function nodePool(name = 'default'): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
          ],
        },
      },
    },
  };
}

/** A minimal valid NodeClaim. */
export function nodeClaim(name = 'default-abcde'): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_D4s_v5'] },
      ],
    },
  };
}

/** A minimal valid NodeOverlay. */
export function nodeOverlay(name = 'discount'): NodeOverlay {
  return {
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name },
    spec: {
      requirements: [{ key: 'karpenter.azure.com/sku-family', operator: 'In', values: ['D'] }],
    },
  };
}

/**
 * Returns a deep copy of `obj` with the value at a dotted path (`spec.template.spec.weight`,
 * array indexes as numbers: `spec.template.spec.requirements.0.key`) set; `undefined` deletes.
 * Missing intermediate objects are created.
 */
export function withField<T>(obj: T, path: string, value: unknown): T {
  const copy = structuredClone(obj) as Record<string, unknown>;
  const segs = path.split('.');
  let node: Record<string, unknown> = copy;
  for (const s of segs.slice(0, -1)) {
    if (node[s] === undefined || node[s] === null) node[s] = {};
    node = node[s] as Record<string, unknown>;
  }
  const last = segs[segs.length - 1] ?? '';
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy as T;
}
