/**
 * The report's summary table: one row per run, and for every run of another autoscaler (the
 * Cluster Autoscaler baseline) the difference from the Karpenter run on the same cloud and
 * region, so the table compares Karpenter with the baseline on each cloud.
 */
import type { RunOutput, SimulationOutput } from '../measures/format.js';

/** The table's column headings, in order. */
export const SUMMARY_COLUMNS = [
  'run',
  'autoscaler',
  'cloud',
  'USD spent',
  'vs Karpenter',
  'USD/h mean',
  'USD/h peak',
  'nodes peak',
  'nodes end',
  'pending peak',
  'to bound p50/p95/p99 s',
  'cpu used',
  'memory used',
  'disruptions',
  'evictions',
  'interruptions',
  'failed launches',
] as const;

/** One cell per column of {@link SUMMARY_COLUMNS}, as text. */
export type SummaryRow = readonly string[];

/** See the module comment. */
export function summaryRows(output: SimulationOutput): SummaryRow[] {
  return output.runs.map((run) => {
    const s = run.summary;
    const ttb = s.timeToBound;
    return [
      run.id,
      run.autoscaler,
      `${run.cloud} ${run.region}`,
      s.usdSpent.toFixed(2),
      versusKarpenter(run, output.runs),
      s.usdPerHour.mean.toFixed(3),
      s.usdPerHour.peak.toFixed(3),
      String(s.nodes.peak),
      String(s.nodes.final),
      String(s.pendingPods.peak),
      ttb === null ? '-' : `${ttb.p50} / ${ttb.p95} / ${ttb.p99}`,
      `${Math.round(s.utilization.cpu * 100)}%`,
      `${Math.round(s.utilization.memory * 100)}%`,
      Object.entries(s.counters.disruptions)
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ') || '0',
      String(s.counters.evictions),
      String(s.counters.interruptions),
      String(s.counters.failedLaunches),
    ];
  });
}

/**
 * USD spent relative to the Karpenter run on the same cloud, region and sweep variant (`+23.4%`: 23.4 % more),
 * `-` for a Karpenter run or when there is none to compare with.
 */
function versusKarpenter(run: RunOutput, runs: readonly RunOutput[]): string {
  if (run.autoscaler === 'karpenter') return '-';
  const base = runs.find(
    (r) =>
      r.autoscaler === 'karpenter' &&
      r.cloud === run.cloud &&
      r.region === run.region &&
      r.variant === run.variant,
  );
  if (base === undefined || base.summary.usdSpent === 0) return '-';
  const change = (run.summary.usdSpent / base.summary.usdSpent - 1) * 100;
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`;
}
