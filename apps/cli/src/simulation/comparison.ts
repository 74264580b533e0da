/**
 * One simulation summarized for `compare`: nodes, cost per hour and month, utilization and the
 * instance types launched.
 */
import { totals, utilization, type Totals, type Utilization } from './report.js';
import type { Simulation } from './simulate.js';

/** Hours in the month figure (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;

/** One column of the comparison. */
export interface ComparisonRow {
  cloud: string;
  region: string;
  nodePools: string[];
  /** Provisioning rounds the simulation ran. */
  rounds: number;
  totals: Totals;
  /** USD per month at {@link HOURS_PER_MONTH} hours. */
  pricePerMonth: number;
  /** Requested / allocatable over the new node claims, 0..1 (0 when nothing was launched). */
  cpuUtilization: number;
  memoryUtilization: number;
  /** Launched instance types and how many of each, most used first. */
  instanceTypes: { name: string; count: number }[];
  notes: string[];
}

/** Summarizes one simulation for the comparison. */
export function comparisonRow(simulation: Simulation): ComparisonRow {
  const t = totals(simulation);
  const u: Utilization = utilization(simulation);
  const counts = new Map<string, number>();
  for (const c of simulation.nodeClaims)
    counts.set(c.launch.instanceType.name, (counts.get(c.launch.instanceType.name) ?? 0) + 1);
  return {
    cloud: simulation.cloud.name,
    region: simulation.cloud.region,
    nodePools: simulation.pools.map((p) => p.nodePool.metadata.name ?? ''),
    rounds: simulation.rounds,
    totals: t,
    pricePerMonth: Math.round(t.pricePerHour * HOURS_PER_MONTH * 100) / 100,
    cpuUtilization: u.cpuAllocatable > 0 ? u.cpuRequested / u.cpuAllocatable : 0,
    memoryUtilization: u.memoryAllocatable > 0 ? u.memoryRequested / u.memoryAllocatable : 0,
    instanceTypes: [...counts]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
    notes: [...simulation.notes],
  };
}
