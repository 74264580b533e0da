/**
 * The scheduler's reason for a pending pod, shortened for people when it names many NodePools.
 *
 * The reason is upstream's: one `incompatible with nodepool "X", WHY` clause per NodePool,
 * joined by `; `. With hundreds of NodePools that is hundreds of clauses, most of them the same
 * WHY; grouped, the line reads `incompatible with nodepools "a", "b", … and 498 more, WHY`.
 * Reasons with few clauses keep upstream's text, and `-o json` always has the full reason.
 */
import { quotedNames } from './name-list.js';

/** NodePool clauses a reason may have before it is grouped. */
export const MAX_UNGROUPED_CLAUSES = 5;

const CLAUSE = /^incompatible with nodepool "([^"]*)", ([\s\S]*)$/;

/**
 * `reason` with its per-NodePool clauses grouped by their WHY (first-seen order), when it has more
 * than {@link MAX_UNGROUPED_CLAUSES} of them; otherwise, or when any part is not such a clause,
 * `reason` unchanged.
 */
export function condensedReason(reason: string): string {
  const clauses = reason.split(/; (?=incompatible with nodepool ")/);
  if (clauses.length <= MAX_UNGROUPED_CLAUSES) return reason;
  const byWhy = new Map<string, string[]>();
  for (const clause of clauses) {
    const m = CLAUSE.exec(clause);
    if (m === null) return reason;
    const pools = byWhy.get(m[2]!);
    if (pools) pools.push(m[1]!);
    else byWhy.set(m[2]!, [m[1]!]);
  }
  return [...byWhy]
    .map(([why, pools]) =>
      pools.length === 1
        ? `incompatible with nodepool "${pools[0]}", ${why}`
        : `incompatible with ${pools.length} nodepools (${quotedNames(pools)}), ${why}`,
    )
    .join('; ');
}
