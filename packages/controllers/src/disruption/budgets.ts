/**
 * Disruption budgets (upstream `apis/v1/nodepool.go`
 * `GetAllowedDisruptionsByReason` and `disruption/helpers.go` `BuildDisruptionBudgetMapping`).
 *
 * For a NodePool and a reason, the allowed number of disruptions is the minimum over the budgets
 * that are active now and apply to the reason (a budget without `reasons` applies to all): an
 * integer is taken as is, a percentage of the pool's node count is rounded **up**. A budget with
 * `schedule` and `duration` is active during the `duration` that starts at each schedule tick
 * (cron, evaluated in UTC); without them it is always active. A budget whose schedule cannot be
 * parsed allows 0 (fail closed). No active budget means no limit.
 */
import type { Budget, DisruptionReason, NodePool } from '@karpenter-ts/api';
import { parseDuration } from '@karpenter-ts/api';
import { Cron } from 'croner';

/** The CRD default when `spec.disruption.budgets` is absent. */
export const DefaultBudgets: readonly Budget[] = [{ nodes: '10%' }];

/** No active budget limits the reason. */
export const Unlimited = Number.MAX_SAFE_INTEGER;

/** Raised for a budget whose `schedule`, `duration` or `nodes` cannot be read. */
export class BudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetError';
  }
}

/** robfig/cron macros upstream accepts; `@midnight` is `@daily`. */
const Macros: Readonly<Record<string, string>> = {
  '@annually': '0 0 1 1 *',
  '@yearly': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/**
 * Whether the budget is active at `nowMs` (upstream `IsActive`): always without a schedule;
 * otherwise the first schedule tick after `now − duration` is at or before now.
 * @throws BudgetError when the schedule is not a 5-field cron or macro, or duration is unreadable.
 */
export function budgetActive(budget: Budget, nowMs: number): boolean {
  if (budget.schedule === undefined && budget.duration === undefined) return true;
  if (budget.schedule === undefined || budget.duration === undefined) {
    throw new BudgetError('schedule and duration must be set together');
  }
  const pattern = Macros[budget.schedule.trim()] ?? budget.schedule.trim();
  const problem = standardCronProblem(pattern);
  if (problem !== undefined) {
    throw new BudgetError(`schedule ${JSON.stringify(budget.schedule)}: ${problem}`);
  }
  let seconds: number | null;
  let cron: Cron;
  try {
    seconds = parseDuration(budget.duration);
    cron = new Cron(pattern, { timezone: 'UTC', paused: true });
  } catch (err) {
    throw new BudgetError(
      `schedule ${JSON.stringify(budget.schedule)} for ${budget.duration}: ${(err as Error).message}`,
    );
  }
  if (seconds === null) throw new BudgetError('duration may not be Never');
  // Croner's nextRun is strictly after its argument; a tick exactly at now − duration has ended.
  const next = cron.nextRun(new Date(nowMs - seconds * 1000));
  return next !== null && next.getTime() <= nowMs;
}

interface CronField {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  readonly question?: boolean;
}

const Months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const Days = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const CronFields: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31, question: true },
  { name: 'month', min: 1, max: 12, names: Months },
  { name: 'day of week', min: 0, max: 6, names: Days, question: true },
];

/**
 * Why a budget's `schedule` (5 fields or a macro) fails closed, or undefined when upstream's
 * parser reads it: the CRD pattern admits `61 * * * *`, which then allows 0 disruptions.
 */
export function budgetScheduleProblem(schedule: string): string | undefined {
  return standardCronProblem(Macros[schedule.trim()] ?? schedule.trim());
}

/**
 * Why robfig/cron's standard parser (upstream's) would refuse a 5-field pattern, or undefined.
 * It knows `*`, `?` (day fields), numbers and names in range, `a-b` ranges, `/step` and `,`
 * lists; croner accepts more (`L`, `#`, `7` for Sunday), which must fail closed here.
 */
export function standardCronProblem(pattern: string): string | undefined {
  const parts = pattern.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) return `expected 5 fields, got ${parts.length}`;
  for (const [i, field] of CronFields.entries()) {
    for (const item of (parts[i] ?? '').split(',')) {
      const problem = cronItemProblem(item, field);
      if (problem !== undefined) return `${field.name} ${JSON.stringify(item)}: ${problem}`;
    }
  }
  return undefined;
}

function cronItemProblem(item: string, field: CronField): string | undefined {
  const [range = '', step, extra] = item.split('/');
  if (extra !== undefined) return 'more than one /';
  if (step !== undefined && !/^[0-9]+$/.test(step)) return 'step is not a number';
  if (step !== undefined && Number(step) === 0) return 'step must be positive';
  if (range === '*' || (range === '?' && field.question === true)) return undefined;
  const bounds = range.split('-');
  if (bounds.length > 2) return 'not a value or range';
  const values: number[] = [];
  for (const b of bounds) {
    const v = cronValue(b, field);
    if (v === undefined) return `not a value in ${field.min}-${field.max}`;
    values.push(v);
  }
  if (values.length === 2 && (values[0] as number) > (values[1] as number)) {
    return 'range start is after its end';
  }
  return undefined;
}

function cronValue(text: string, field: CronField): number | undefined {
  if (/^[0-9]+$/.test(text)) {
    const v = Number(text);
    return v >= field.min && v <= field.max ? v : undefined;
  }
  const i = field.names?.indexOf(text.toUpperCase()) ?? -1;
  return i < 0 ? undefined : i + field.min;
}

/**
 * The budget's `nodes` for a pool of `nodeCount` nodes: integers as is, percentages rounded up.
 * @throws BudgetError when `nodes` is neither.
 */
export function budgetNodes(budget: Budget, nodeCount: number): number {
  const text = String(budget.nodes ?? '10%').trim();
  const percent = /^([0-9]+)%$/.exec(text);
  if (percent !== null) return Math.ceil((Number(percent[1]) * nodeCount) / 100);
  // Upstream reads the integer as an int32 and fails (allowing 0) beyond it.
  if (/^[0-9]+$/.test(text) && Number(text) <= 2_147_483_647) return Number(text);
  throw new BudgetError(`nodes ${JSON.stringify(text)} is neither an integer nor a percentage`);
}

/** One budget's verdict for a reason, for explanations (`budget for Underutilized is 0 (...)`). */
export interface BudgetVerdict {
  /** Disruptions allowed for the reason now (before subtracting nodes already disrupting). */
  readonly allowed: number;
  /** The budget that set the minimum, when one did. */
  readonly limitingBudget?: Budget;
  /** A budget that failed closed, with the error. */
  readonly error?: string;
}

/**
 * Allowed disruptions for `reason` in `pool` with `nodeCount` counted nodes at `nowMs` (see the
 * module comment). Never raises: a malformed budget allows 0 and says why.
 */
export function allowedDisruptions(
  pool: NodePool,
  reason: DisruptionReason,
  nodeCount: number,
  nowMs: number,
): BudgetVerdict {
  const budgets = pool.spec.disruption?.budgets ?? DefaultBudgets;
  let allowed = Unlimited;
  let limitingBudget: Budget | undefined;
  for (const budget of budgets) {
    if (budget.reasons !== undefined && !budget.reasons.includes(reason)) continue;
    let active: boolean;
    let nodes: number;
    try {
      active = budgetActive(budget, nowMs);
      nodes = budgetNodes(budget, nodeCount);
    } catch (err) {
      return { allowed: 0, limitingBudget: budget, error: (err as Error).message };
    }
    if (active && nodes < allowed) {
      allowed = nodes;
      limitingBudget = budget;
    }
  }
  return limitingBudget === undefined ? { allowed } : { allowed, limitingBudget };
}

/** A budget as a phrase: `nodes: 0 (schedule "0 9 * * 1-5" for 8h)`. */
export function describeBudget(budget: Budget): string {
  const window =
    budget.schedule !== undefined
      ? ` (schedule ${JSON.stringify(budget.schedule)} for ${budget.duration ?? '?'})`
      : '';
  return `nodes: ${budget.nodes}${window}`;
}
