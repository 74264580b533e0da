/**
 * One simulation summarized for `compare`: nodes, cost per hour and month, utilization, the
 * instance types and capacity types launched, why pods stayed pending, and what retargeting
 * dropped.
 */
import { formatRequirement } from '../output/requirement-text.js';
import { groupPendingPods } from './pending-groups.js';
import { totals, utilization, type Totals, type Utilization } from './report.js';
import { podName, type Simulation } from './simulate.js';

/** Hours in the month figure (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;

/** One column of the comparison. */
export interface ComparisonRow {
  cloud: string;
  region: string;
  nodePools: string[];
  /** Requirements dropped per retargeted NodePool (`KEY OP VALUES`); only pools that lost some. */
  droppedRequirements: { nodePool: string; requirements: string[] }[];
  /** Provisioning rounds the simulation ran. */
  rounds: number;
  /** Prices (USD/hour) rounded to 6 decimals. */
  totals: Totals;
  /** USD per month at {@link HOURS_PER_MONTH} hours, rounded to cents. */
  pricePerMonth: number;
  /** Requested / allocatable over the new node claims, 0..1 (0 when nothing was launched). */
  cpuUtilization: number;
  memoryUtilization: number;
  /** Launched instance types and how many of each, most used first. */
  instanceTypes: { name: string; count: number }[];
  /** New node claims per capacity type (`spot`, `on-demand`, `reserved`), most used first. */
  capacityTypes: { capacityType: string; count: number }[];
  /**
   * How the spot prices of this run were modelled (`spot = 0.7 × on-demand (modelled)`), when
   * it launched spot and the cloud's shipped data has no observed spot prices; else absent.
   */
  spotPricing?: string;
  /** Pending pods grouped by reason, largest group first, with one pod to `explain`. */
  pending: { reason: string; pods: number; examplePod: string }[];
  notes: string[];
}

/** Summarizes one simulation for the comparison. */
export function comparisonRow(simulation: Simulation): ComparisonRow {
  const t = totals(simulation);
  const u: Utilization = utilization(simulation);
  const instanceTypes = countBy(simulation.nodeClaims.map((c) => c.launch.instanceType.name));
  const capacityTypes = countBy(simulation.nodeClaims.map((c) => c.launch.offering.capacityType));
  const spotPricing = capacityTypes.some((c) => c.name === 'spot')
    ? simulation.cloud.spotPricing
    : undefined;
  return {
    cloud: simulation.cloud.name,
    region: simulation.cloud.region,
    nodePools: simulation.pools.map((p) => p.nodePool.metadata.name ?? ''),
    droppedRequirements: simulation.pools
      .filter((p) => p.droppedRequirements.length > 0)
      .map((p) => ({
        nodePool: p.nodePool.metadata.name ?? '',
        requirements: p.droppedRequirements.map(formatRequirement),
      })),
    rounds: simulation.rounds,
    totals: t,
    pricePerMonth: Math.round(t.pricePerHour * HOURS_PER_MONTH * 100) / 100,
    cpuUtilization: u.cpuAllocatable > 0 ? u.cpuRequested / u.cpuAllocatable : 0,
    memoryUtilization: u.memoryAllocatable > 0 ? u.memoryRequested / u.memoryAllocatable : 0,
    instanceTypes,
    capacityTypes: capacityTypes.map(({ name, count }) => ({ capacityType: name, count })),
    ...(spotPricing === undefined ? {} : { spotPricing }),
    pending: groupPendingPods(simulation.podErrors).map((g) => ({
      reason: g.reason,
      pods: g.pods.length,
      examplePod: podName(g.pods[0]!),
    })),
    notes: [...simulation.notes],
  };
}

/** Occurrences of each value, most frequent first, ties by name. */
function countBy(values: readonly string[]): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
}
