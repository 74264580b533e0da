/**
 * Budget schedules the CRD pattern admits but upstream's cron parser refuses (`61 * * * *`,
 * `0 9 * * 7`): the API server accepts the NodePool, and then the budget allows 0 disruptions for
 * its reasons (it fails closed). Not a problem, since the object is valid; a warning, since it
 * silently blocks disruption.
 */
import type { NodePool } from '@karpenter-ts/api';
import { budgetScheduleProblem } from '@karpenter-ts/controllers';

/** One warning per such budget: its path and message. */
export function budgetScheduleWarnings(nodePool: NodePool): { path: string; message: string }[] {
  const budgets: unknown = nodePool?.spec?.disruption?.budgets;
  if (!Array.isArray(budgets)) return [];
  const out: { path: string; message: string }[] = [];
  budgets.forEach((budget: unknown, i) => {
    const schedule = (budget as { schedule?: unknown } | null)?.schedule;
    if (typeof schedule !== 'string') return;
    const problem = budgetScheduleProblem(schedule);
    if (problem === undefined) return;
    out.push({
      path: `spec.disruption.budgets[${i}].schedule`,
      message: `upstream's cron parser refuses this schedule (${problem.replace(/^schedule [^:]*: /, '')}), so the budget allows 0 disruptions`,
    });
  });
  return out;
}
