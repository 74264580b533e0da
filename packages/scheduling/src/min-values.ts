/**
 * minValues: a NodePool requirement may ask that a node claim keep at
 * least N distinct values of a key among its instance-type options, so the launch has room to
 * fall back.
 */
import type { Requirements } from './requirements.js';
import type { SchedulerInstanceType } from './scheduler-types.js';

/** The outcome of a minValues check. */
export interface MinValuesResult {
  /** True when every key reached its minValues. */
  readonly satisfied: boolean;
  /** Instance types (from the front of the list) needed to reach every minimum; the whole list when unsatisfied. */
  readonly needed: number;
  /** Keys that fell short, with the distinct values found, e.g. `{ "node.kubernetes.io/instance-type": 2 }`. */
  readonly shortfall: Readonly<Record<string, number>>;
}

/**
 * Walks `types` in order, collecting the distinct values (allowed by `reqs`) each type offers for
 * every key whose requirement carries minValues, until all minimums are met.
 */
export function checkMinValues(
  reqs: Requirements,
  types: readonly SchedulerInstanceType[],
): MinValuesResult {
  const wanted = reqs.minValues();
  const keys = Object.keys(wanted);
  if (keys.length === 0) return { satisfied: true, needed: 0, shortfall: {} };
  const seen = new Map<string, Set<string>>(keys.map((k) => [k, new Set()]));
  const done = (): boolean =>
    keys.every((k) => (seen.get(k) as Set<string>).size >= (wanted[k] as number));
  for (let i = 0; i < types.length; i++) {
    const it = types[i] as SchedulerInstanceType;
    for (const key of keys) {
      const r = it.requirements.get(key);
      if (r.complement) continue;
      const allowed = reqs.get(key);
      for (const v of r.valuesList()) if (allowed.has(v)) (seen.get(key) as Set<string>).add(v);
    }
    if (done()) return { satisfied: true, needed: i + 1, shortfall: {} };
  }
  const shortfall: Record<string, number> = {};
  for (const key of keys) {
    const n = (seen.get(key) as Set<string>).size;
    if (n < (wanted[key] as number)) shortfall[key] = n;
  }
  return { satisfied: false, needed: types.length, shortfall };
}

/** `minValues for key K needs N, only M available; ...` */
export function describeShortfall(
  reqs: Requirements,
  shortfall: Readonly<Record<string, number>>,
): string {
  const wanted = reqs.minValues();
  return Object.entries(shortfall)
    .map(([k, n]) => `minValues for ${k} needs ${wanted[k]} distinct values, only ${n} available`)
    .join('; ');
}
