/** Builders for the NodeOverlay tests: an overlay from a few fields. */
import type { NodeOverlay, NodeOverlaySpec, NodeSelectorRequirement } from '@karpenter-ts/api';

/** A NodeOverlay named `name` selecting `requirements` (default: every instance type). */
export function overlay(
  name: string,
  spec: Partial<NodeOverlaySpec> & { requirements?: NodeSelectorRequirement[] },
): NodeOverlay {
  return {
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name },
    spec: {
      requirements: spec.requirements ?? [
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
      ],
      ...(spec.price !== undefined ? { price: spec.price } : {}),
      ...(spec.priceAdjustment !== undefined ? { priceAdjustment: spec.priceAdjustment } : {}),
      ...(spec.capacity !== undefined ? { capacity: spec.capacity } : {}),
      ...(spec.weight !== undefined ? { weight: spec.weight } : {}),
    },
  };
}

/** Selects one instance type by name. */
export function instanceType(name: string): NodeSelectorRequirement[] {
  return [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: [name] }];
}
