/**
 * Which requirements no instance type of a catalog can satisfy, for messages: a NodePool pinned
 * to a zone the region lacks (`topology.kubernetes.io/zone In [eastus-9]`) launches nothing, and
 * the user needs the key, the values asked for and the values the catalog has.
 */
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { Requirements } from '@karpenter-ts/scheduling';

/** Most offered values listed per key before "and N more". */
const SHOWN_VALUES = 8;

/**
 * One clause per requirement of `requirements` that no instance type of `instanceTypes`
 * intersects on its own (keys an instance type does not define never block it, as in upstream's
 * `Intersects`), each naming the requirement and the values the catalog offers for its key, e.g.
 * `no instance type offers topology.kubernetes.io/zone In [eastus-9] (eastus has eastus-1,
 * eastus-2, eastus-3)`; clauses joined by "; ". Undefined when every requirement alone is
 * offered (then only their combination fails).
 */
export function unofferedRequirements(
  requirements: Requirements,
  instanceTypes: readonly InstanceType[],
  region: string,
): string | undefined {
  const clauses: string[] = [];
  for (const requirement of requirements.values()) {
    const single = new Requirements(requirement);
    if (instanceTypes.some((it) => it.requirements.isIntersecting(single))) continue;
    const offered = new Set<string>();
    for (const it of instanceTypes) {
      if (!it.requirements.has(requirement.key)) continue;
      const own = it.requirements.get(requirement.key);
      if (!own.complement) for (const v of own.valuesList()) offered.add(v);
    }
    const values = [...offered].sort();
    const shown =
      values.length > SHOWN_VALUES
        ? `${values.slice(0, SHOWN_VALUES).join(', ')} and ${values.length - SHOWN_VALUES} more`
        : values.join(', ');
    clauses.push(
      `no instance type offers ${requirement.toString()}` +
        (values.length > 0 ? ` (${region} has ${shown})` : ''),
    );
  }
  return clauses.length > 0 ? clauses.join('; ') : undefined;
}
