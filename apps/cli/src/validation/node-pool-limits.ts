/**
 * NodePool `spec.limits` the simulation can use: the CRD accepts any quantity, negative ones
 * too, but a negative limit is always exceeded, so Karpenter never launches from such a pool.
 */
import { parseQuantity } from '@karpenter-ts/scheduling';
import { keyPath, type FieldProblem } from './api-fields.js';

/**
 * A problem for each negative limit of `nodePool` (paths relative to the object). Limits that
 * are not quantities are left to the CRD schema, which reports them. A limit too large for an
 * exact integer in its unit is fine: the scheduler counts it as no limit.
 */
export function nodePoolLimitProblems(nodePool: unknown): FieldProblem[] {
  const spec = isRecord(nodePool) ? nodePool.spec : undefined;
  const limits = isRecord(spec) ? spec.limits : undefined;
  if (!isRecord(limits)) return [];
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    let negative: boolean;
    try {
      negative = parseQuantity(value).nanos < 0n;
    } catch {
      continue;
    }
    if (negative)
      problems.push({
        path: keyPath('spec.limits', name),
        message: `must not be negative, got ${JSON.stringify(value)} (the apiserver accepts a negative limit, but Karpenter then finds the NodePool over its limit and never launches from it)`,
      });
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
