/**
 * CA's expanders: which scale-up option (node group, node count, pods) a loop takes.
 * - `random` (CA's default): one option at random (seeded, so runs repeat);
 * - `least-waste`: the least idle cpu plus idle memory, each as a fraction of the new nodes'
 *   allocatable, after the option's pods are placed (ties: more pods, then the group name);
 * - `price`: the lowest USD/hour of the new nodes per requested cpu core of the pods they hold
 *   (ties as least-waste). CA's price expander also weighs each group's node size against a
 *   preferred size for the cluster; that part is not modelled.
 */
import { podRequests } from '@karpenter-ts/scheduling';
import type { SeededRandom } from '../seeded-random.js';
import type { ScaleUpOption } from './estimator.js';

/** Expander names, as CA's `--expander` flag takes them. */
export const EXPANDERS = ['random', 'least-waste', 'price'] as const;
export type Expander = (typeof EXPANDERS)[number];

/** The option `expander` takes from `options` (undefined when there is none). */
export function expand(
  expander: Expander,
  options: readonly ScaleUpOption[],
  random: SeededRandom,
): ScaleUpOption | undefined {
  if (options.length === 0) return undefined;
  const sorted = [...options].sort((a, b) => (a.group.name < b.group.name ? -1 : 1));
  if (expander === 'random') return sorted[random.index(sorted.length)];
  const score = expander === 'price' ? pricePerCore : waste;
  return sorted.reduce((best, o) => {
    const d = score(o) - score(best);
    if (d !== 0) return d < 0 ? o : best;
    const w = waste(o) - waste(best);
    if (w !== 0) return w < 0 ? o : best;
    return o.pods.length > best.pods.length ? o : best;
  });
}

/** Idle cpu plus idle memory, as fractions of the new nodes' allocatable (0 to 2). */
export function waste(o: ScaleUpOption): number {
  const alloc = o.group.instanceType.allocatable();
  const cpuTotal = (alloc.cpu ?? 0) * o.nodeCount;
  const memTotal = (alloc.memory ?? 0) * o.nodeCount;
  let cpu = 0;
  let memory = 0;
  for (const p of o.pods) {
    const r = podRequests(p);
    cpu += r.cpu ?? 0;
    memory += r.memory ?? 0;
  }
  const idle = (used: number, total: number) => (total > 0 ? (total - used) / total : 1);
  return idle(cpu, cpuTotal) + idle(memory, memTotal);
}

/** USD/hour of the new nodes per requested core of the pods they hold. */
export function pricePerCore(o: ScaleUpOption): number {
  const price = Math.min(
    ...o.group.instanceType.offerings
      .filter((x) => x.capacityType === o.group.capacityType && x.available)
      .map((x) => x.price),
  );
  let cpu = 0;
  for (const p of o.pods) cpu += podRequests(p).cpu ?? 0;
  return cpu > 0 ? (price * o.nodeCount) / (cpu / 1000) : price * o.nodeCount * 1e6;
}
