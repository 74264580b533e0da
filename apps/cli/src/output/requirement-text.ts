/**
 * One NodePool requirement as people write it: `karpenter.k8s.aws/instance-cpu Lte 16`,
 * `karpenter.azure.com/sku-family In [D, E]`, `kubernetes.io/arch Exists`.
 */
import type { NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';

/** `KEY OP VALUE` for one value, `KEY OP [V1, V2]` for several, `KEY OP` for none; minValues appended. */
export function formatRequirement(requirement: NodeSelectorRequirementWithMinValues): string {
  const values = requirement.values ?? [];
  const shown =
    values.length === 0 ? '' : values.length === 1 ? ` ${values[0]}` : ` [${values.join(', ')}]`;
  const min = requirement.minValues === undefined ? '' : ` (minValues ${requirement.minValues})`;
  return `${requirement.key} ${requirement.operator}${shown}${min}`;
}
