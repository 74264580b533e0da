/**
 * The runs' summaries as a table for the terminal (cli-table3, as the `karpenter-ts` CLI).
 */
import Table from 'cli-table3';
import type { SimulationOutput } from './format.js';

/** One row per run: cost, nodes, pod start times, disruption counts. */
export function summaryTable(output: SimulationOutput): string {
  const table = new Table({
    head: [
      'run',
      'USD spent',
      'USD/h mean',
      'USD/h peak',
      'nodes peak',
      'nodes end',
      'to bound p50/p95/p99 s',
      'cpu used',
      'disruptions',
      'evictions',
      'interrupted',
      'failed launches',
    ],
    style: { head: [], border: [] },
  });
  for (const run of output.runs) {
    const s = run.summary;
    const ttb = s.timeToBound;
    table.push([
      run.id,
      s.usdSpent.toFixed(2),
      s.usdPerHour.mean.toFixed(3),
      s.usdPerHour.peak.toFixed(3),
      s.nodes.peak,
      s.nodes.final,
      ttb === null ? '-' : `${ttb.p50}/${ttb.p95}/${ttb.p99}`,
      `${Math.round(s.utilization.cpu * 100)}%`,
      Object.entries(s.counters.disruptions)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ') || '0',
      s.counters.evictions,
      s.counters.interruptions,
      s.counters.failedLaunches,
    ]);
  }
  return `${table.toString()}\n`;
}
