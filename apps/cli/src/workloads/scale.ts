/**
 * `--scale F`: multiplies the replica counts of workload controllers.
 */

/**
 * `ceil(count × factor)`, so any non-zero workload keeps at least one pod and fractional
 * results round up (`--scale 0.5` of 3 replicas ⇒ 2). The product is rounded to 9 decimals
 * first so float noise (`10 × 0.3 = 3.0000000000000004`) does not add a pod. `factor` must be
 * finite and > 0 (the command checks it).
 */
export function scaleCount(count: number, factor: number): number {
  if (count <= 0) return 0;
  return Math.ceil(Number((count * factor).toFixed(9)));
}
