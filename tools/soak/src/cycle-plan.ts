/**
 * The soak's seeded plan: per cycle a Deployment size, a kill point and delays, drawn with
 * fast-check from the seed, so `--seed S` replays the same cycles.
 */
import fc from 'fast-check';

/** When a cycle SIGKILLs the controller. */
export type KillPoint = 'new-node-claims' | 'termination' | 'disruption' | 'random';

/** One cycle of the plan. */
export interface CyclePlan {
  /** 1-based. */
  readonly cycle: number;
  /** The size to scale to (0 to the maximum; each kill point adjusts it, see main.ts). */
  readonly replicas: number;
  readonly kill: KillPoint;
  /** For `random`: how long after the scale the kill comes, in ms (0-10 s). */
  readonly delayMs: number;
  /** How long after the kill moment the kill comes, in ms (0-2 s). */
  readonly afterMs: number;
}

/** `cycles` cycles drawn from `seed`, sizes 0 to `maxReplicas`. */
export function cyclePlan(seed: number, cycles: number, maxReplicas: number): CyclePlan[] {
  const step = fc.record({
    replicas: fc.integer({ min: 0, max: maxReplicas }),
    kill: fc.constantFrom<KillPoint>('new-node-claims', 'termination', 'disruption', 'random'),
    delayMs: fc.integer({ min: 0, max: 10_000 }),
    afterMs: fc.integer({ min: 0, max: 2_000 }),
  });
  const [steps] = fc.sample(fc.array(step, { minLength: cycles, maxLength: cycles }), {
    seed,
    numRuns: 1,
  });
  return steps!.map((s, i) => ({ cycle: i + 1, ...s }));
}
