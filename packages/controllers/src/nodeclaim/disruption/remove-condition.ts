/** Removing a status condition (operatorpkg `Clear`), as the disruption conditions do when they stop holding. */
import type { StatusCondition } from '@karpenter-ts/api';

/** Removes the condition of that type in place; true when there was one. */
export function removeCondition(
  object: { status?: { conditions?: StatusCondition[] } },
  type: string,
): boolean {
  const conditions = object.status?.conditions;
  if (conditions === undefined) return false;
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}
