/**
 * The measures as CSV (written with csv-stringify), one row per run and time:
 * - `samples.csv`: run, t (s), nodes, usd_per_hour, usd_spent, pending_pods, running_pods,
 *   requested/allocatable cpu (millicores) and memory (bytes), time_to_bound count/p50/p95/p99
 *   (s, pods bound since the previous sample), and the counters so far;
 * - `nodes.csv`: run, t, instance_type, capacity_type, count (instances at each sample);
 * - `events.csv`: run, t, type, and the event's fields as `detail` (JSON).
 */
import { stringify } from 'csv-stringify/sync';
import type { SimulationOutput } from './format.js';

/** `samples.csv` (see the module comment). */
export function samplesCsv(output: SimulationOutput): string {
  const rows: (string | number)[][] = [];
  for (const run of output.runs) {
    for (const s of run.samples) {
      const c = s.counters;
      rows.push([
        run.id,
        s.t,
        s.nodes,
        s.usdPerHour,
        s.usdSpent,
        s.pendingPods,
        s.runningPods,
        s.requested.cpu,
        s.allocatable.cpu,
        s.requested.memory,
        s.allocatable.memory,
        s.timeToBound?.count ?? 0,
        s.timeToBound?.p50 ?? '',
        s.timeToBound?.p95 ?? '',
        s.timeToBound?.p99 ?? '',
        Object.values(c.disruptions).reduce((a, b) => a + b, 0),
        c.evictions,
        c.interruptions,
        c.failedLaunches,
        c.nodeFailures,
        c.nodesLaunched,
        c.nodesTerminated,
        c.podsCreated,
        c.podsCompleted,
      ]);
    }
  }
  return stringify(rows, {
    header: true,
    columns: [
      'run',
      't',
      'nodes',
      'usd_per_hour',
      'usd_spent',
      'pending_pods',
      'running_pods',
      'requested_cpu_millicores',
      'allocatable_cpu_millicores',
      'requested_memory_bytes',
      'allocatable_memory_bytes',
      'time_to_bound_count',
      'time_to_bound_p50_seconds',
      'time_to_bound_p95_seconds',
      'time_to_bound_p99_seconds',
      'disruptions',
      'evictions',
      'interruptions',
      'failed_launches',
      'node_failures',
      'nodes_launched',
      'nodes_terminated',
      'pods_created',
      'pods_completed',
    ],
  });
}

/** `nodes.csv` (see the module comment). */
export function nodesCsv(output: SimulationOutput): string {
  const rows: (string | number)[][] = [];
  for (const run of output.runs)
    for (const s of run.samples)
      for (const [type, byCapacity] of Object.entries(s.nodesByInstanceType))
        for (const [capacity, count] of Object.entries(byCapacity))
          rows.push([run.id, s.t, type, capacity, count ?? 0]);
  return stringify(rows, {
    header: true,
    columns: ['run', 't', 'instance_type', 'capacity_type', 'count'],
  });
}

/** `events.csv` (see the module comment). */
export function eventsCsv(output: SimulationOutput): string {
  const rows: (string | number)[][] = [];
  for (const run of output.runs)
    for (const e of run.events) {
      const { t, type, ...detail } = e;
      rows.push([run.id, t, type, JSON.stringify(detail)]);
    }
  return stringify(rows, { header: true, columns: ['run', 't', 'type', 'detail'] });
}
