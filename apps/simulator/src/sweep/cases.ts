/**
 * A sweep's cases (scenarios × NodePool variants × clouds × autoscalers, in that order) and the
 * share of them one shard runs: case k goes to shard k mod n, so each shard gets a mix of
 * scenarios and clouds. The shard comes from `--shard i/n` (1-based, as test runners number
 * shards) or from a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` (0-based) with `--shards n`.
 */
import { UsageError } from '@karpenter-ts/cli';
import type { AutoscalerName, CloudRun, Scenario } from '../scenario/types.js';
import { sweepClouds, withVariant, type Sweep } from './load.js';

/** One run of a sweep. */
export interface SweepCase {
  /** Position in the whole sweep (0-based). */
  readonly index: number;
  /** The scenario with the variant applied. */
  readonly scenario: Scenario;
  readonly variant: string;
  readonly cloud: CloudRun;
  readonly autoscaler: AutoscalerName;
}

/** A shard: `index` 0-based of `count`. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Every case of the sweep, in order. */
export function sweepCases(sweep: Sweep): SweepCase[] {
  const cases: SweepCase[] = [];
  for (const base of sweep.scenarios)
    for (const v of sweep.variants) {
      const scenario = withVariant(base, v);
      for (const cloud of sweepClouds(sweep, scenario))
        for (const autoscaler of sweep.autoscalers ?? base.autoscalers)
          cases.push({ index: cases.length, scenario, variant: v.name, cloud, autoscaler });
    }
  return cases;
}

/** The cases shard `shard` runs (all of them without a shard). */
export function shardCases(cases: readonly SweepCase[], shard: Shard | undefined): SweepCase[] {
  return shard === undefined
    ? [...cases]
    : cases.filter((c) => c.index % shard.count === shard.index);
}

/**
 * The shard from `--shard i/n`, or else from `JOB_COMPLETION_INDEX` in `env` with `--shards n`;
 * undefined for the whole sweep. Raises UsageError for a malformed or out-of-range value, for
 * both ways at once, and for JOB_COMPLETION_INDEX without `--shards`.
 */
export function parseShard(
  shardFlag: string | undefined,
  shardsFlag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Shard | undefined {
  const jobIndex = env.JOB_COMPLETION_INDEX;
  if (shardFlag !== undefined) {
    if (shardsFlag !== undefined)
      throw new UsageError('--shard i/n and --shards n are two ways to say the same: give one');
    const m = /^(\d+)\/(\d+)$/.exec(shardFlag);
    const i = Number(m?.[1]);
    const n = Number(m?.[2]);
    if (m === null || !(n >= 1) || !(i >= 1) || i > n)
      throw new UsageError(
        `--shard: expected i/n with 1 <= i <= n (e.g. 2/4), got ${JSON.stringify(shardFlag)}`,
      );
    return { index: i - 1, count: n };
  }
  if (shardsFlag === undefined) {
    if (jobIndex !== undefined)
      throw new UsageError(
        "JOB_COMPLETION_INDEX is set: give --shards n (the Job's completions) to shard by it",
      );
    return undefined;
  }
  const n = Number(shardsFlag);
  if (!/^\d+$/.test(shardsFlag) || !(n >= 1))
    throw new UsageError(
      `--shards: expected a count of at least 1, got ${JSON.stringify(shardsFlag)}`,
    );
  if (jobIndex === undefined || !/^\d+$/.test(jobIndex) || Number(jobIndex) >= n)
    throw new UsageError(
      `--shards ${n}: expected JOB_COMPLETION_INDEX 0..${n - 1} in the environment (an Indexed Job sets it), got ${JSON.stringify(jobIndex ?? null)}`,
    );
  return { index: Number(jobIndex), count: n };
}
