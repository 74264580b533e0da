/**
 * What the HTML report draws, computed from the measures (format `karpenter-ts-sim/v1`): one
 * {@link ReportChart} per chart, each a list of series of `[hours, value]` points, and the
 * timeline's events. The page's script only hands these to the charting library, so every number
 * on the page comes from here, and a test can count what each chart must draw.
 *
 * Charts: USD/hour and USD spent per run; nodes by instance type and capacity type per run
 * (stacked); pending pods per run; time from creation to bound per run (p50 and p95 of the pods
 * bound in each sample window, no point where none was bound); requested ÷ allocatable cpu and
 * memory per run (percent, no point while nothing is allocatable); and the disruption timeline
 * (disruptions by reason, spot interruptions, failed launches, node failures), one row per run.
 *
 * A page of several scenarios (a sweep) holds one {@link ReportData} section per scenario, each
 * on its own time axis, its chart ids starting with the scenario name (`day/cost-rate`).
 */
import type { RunOutput, SimulationOutput, TimelineEvent } from '../measures/format.js';

/** A point: hours since time 0, and the value (null: nothing to draw there, a gap). */
export type ReportPoint = readonly [hours: number, value: number | null];

/** One line (or stacked band) of a chart. */
export interface ReportSeries {
  readonly label: string;
  /** The run it belongs to (`RunOutput.id`). */
  readonly run: string;
  readonly points: readonly ReportPoint[];
  /** Drawn dashed (a secondary measure of the same run, e.g. p50 beside p95). */
  readonly dashed?: boolean;
}

/** A line chart over time: `stacked` sums its series (nodes by instance type). */
export interface ReportLineChart {
  readonly kind: 'line';
  readonly id: string;
  readonly title: string;
  readonly yLabel: string;
  readonly stacked: boolean;
  /** Values hold between samples (counts of things), rather than change gradually. */
  readonly stepped: boolean;
  /** Mark each point (values with gaps between them, where a lone point would not show as a line). */
  readonly markers: boolean;
  readonly series: readonly ReportSeries[];
}

/** One mark on the timeline. */
export interface ReportEventPoint {
  readonly hours: number;
  /** The row: a run id. */
  readonly run: string;
  /** What the tooltip says. */
  readonly detail: string;
}

/** The disruption timeline: one series per kind of event, one row per run. */
export interface ReportEventChart {
  readonly kind: 'events';
  readonly id: string;
  readonly title: string;
  /** The rows, in run order. */
  readonly runs: readonly string[];
  readonly series: readonly {
    readonly label: string;
    readonly points: readonly ReportEventPoint[];
  }[];
}

/** Any chart of the report. */
export type ReportChart = ReportLineChart | ReportEventChart;

/** What the page shows of one scenario. */
export interface ReportData {
  readonly title: string;
  /** The scenario's name. */
  readonly scenario: string;
  /** Time 0 as an ISO 8601 UTC time (the charts label hours with the clock time). */
  readonly start: string;
  /** The scenario's length in hours (every chart's time axis spans it). */
  readonly durationHours: number;
  readonly charts: readonly ReportChart[];
}

/** Event types drawn on the timeline (evictions and launches are too many to mark; they are counted in the table). */
export const TIMELINE_EVENT_TYPES = [
  'disruption',
  'interruption',
  'launch-failed',
  'node-failure',
] as const satisfies readonly TimelineEvent['type'][];

/** Everything the page shows: one section per scenario. */
export interface ReportPage {
  readonly title: string;
  readonly sections: readonly ReportData[];
}

/**
 * The page for `outputs`, one per scenario (names must differ): a single scenario's section
 * keeps the plain chart ids (`cost-rate`), several prefix them with the scenario name
 * (`day/cost-rate`) so every id on the page is unique.
 */
export function reportPage(outputs: readonly SimulationOutput[], title?: string): ReportPage {
  const names = outputs.map((o) => o.scenario.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`scenario ${twice} is given twice (group it first)`);
  const sections = outputs.map((o) =>
    reportData(o, outputs.length === 1 ? '' : `${o.scenario.name}/`),
  );
  return { title: title ?? sections.map((s) => s.title).join('; '), sections };
}

/**
 * See the module comment. `output` may hold runs of several autoscalers and clouds; `idPrefix`
 * starts every chart id (a page of several scenarios).
 */
export function reportData(output: SimulationOutput, idPrefix = ''): ReportData {
  const runs = output.runs;
  const unprefixed: ReportChart[] = [
    perRun('cost-rate', 'Cost rate', 'USD/hour', runs, (s) => s.usdPerHour, { stepped: true }),
    perRun('cost-spent', 'USD spent since time 0', 'USD', runs, (s) => s.usdSpent),
    ...runs.map((run, i) => nodesChart(run, i)),
    perRun('pending', 'Pending pods', 'pods', runs, (s) => s.pendingPods, { stepped: true }),
    timeToBoundChart(runs),
    perRun('utilization-cpu', 'CPU requested ÷ allocatable', '%', runs, (s) =>
      percent(s.requested.cpu, s.allocatable.cpu),
    ),
    perRun('utilization-memory', 'Memory requested ÷ allocatable', '%', runs, (s) =>
      percent(s.requested.memory, s.allocatable.memory),
    ),
    eventsChart(runs),
  ];
  const charts = unprefixed.map((c) => ({ ...c, id: `${idPrefix}${c.id}` }));
  return {
    title: `${output.scenario.name}: ${runs.map((r) => r.id).join(', ')}`,
    scenario: output.scenario.name,
    start: output.scenario.start,
    durationHours: hours(output.scenario.durationSeconds),
    charts,
  };
}

type SampleOf = RunOutput['samples'][number];

function perRun(
  id: string,
  title: string,
  yLabel: string,
  runs: readonly RunOutput[],
  value: (s: SampleOf) => number | null,
  o: { stepped?: boolean } = {},
): ReportLineChart {
  return {
    kind: 'line',
    id,
    title,
    yLabel,
    stacked: false,
    stepped: o.stepped ?? false,
    markers: false,
    series: runs.map((run) => ({
      label: run.id,
      run: run.id,
      points: run.samples.map((s) => [hours(s.t), value(s)] as const),
    })),
  };
}

/** Nodes of one run, one stacked series per instance type and capacity type seen in any sample. */
function nodesChart(run: RunOutput, index: number): ReportLineChart {
  const keys = new Map<string, { type: string; capacity: string }>();
  for (const s of run.samples)
    for (const [type, byCapacity] of Object.entries(s.nodesByInstanceType))
      for (const capacity of Object.keys(byCapacity))
        keys.set(`${type} ${capacity}`, { type, capacity });
  const labels = [...keys.keys()].sort();
  return {
    kind: 'line',
    id: `nodes-${index}`,
    title: `Nodes by instance type: ${run.id}`,
    yLabel: 'nodes',
    stacked: true,
    stepped: true,
    markers: false,
    series: labels.map((label) => {
      const { type, capacity } = keys.get(label)!;
      return {
        label,
        run: run.id,
        points: run.samples.map((s) => {
          const byCapacity = s.nodesByInstanceType[type] as Record<string, number> | undefined;
          return [hours(s.t), byCapacity?.[capacity] ?? 0] as const;
        }),
      };
    }),
  };
}

function timeToBoundChart(runs: readonly RunOutput[]): ReportLineChart {
  return {
    kind: 'line',
    id: 'time-to-bound',
    title: 'Time from pod creation to bound (pods bound in each sample window)',
    yLabel: 'seconds',
    stacked: false,
    stepped: false,
    markers: true,
    series: runs.flatMap((run) => [
      {
        label: `${run.id} p95`,
        run: run.id,
        points: run.samples.map((s) => [hours(s.t), s.timeToBound?.p95 ?? null] as const),
      },
      {
        label: `${run.id} p50`,
        run: run.id,
        dashed: true,
        points: run.samples.map((s) => [hours(s.t), s.timeToBound?.p50 ?? null] as const),
      },
    ]),
  };
}

function eventsChart(runs: readonly RunOutput[]): ReportEventChart {
  const series = new Map<string, ReportEventPoint[]>();
  const add = (label: string, point: ReportEventPoint) => {
    const list = series.get(label) ?? [];
    list.push(point);
    series.set(label, list);
  };
  for (const run of runs) {
    for (const e of run.events) {
      const at = { hours: hours(e.t), run: run.id };
      if (e.type === 'disruption')
        add(`disruption: ${e.reason}`, {
          ...at,
          detail: `${e.reason} ${e.decision} ${e.nodes.join(', ')}${e.replacements > 0 ? ` (${e.replacements} replacement${e.replacements === 1 ? '' : 's'})` : ''}`,
        });
      else if (e.type === 'interruption')
        add('spot interruption', { ...at, detail: `${e.node} ${e.instanceType} ${e.zone}` });
      else if (e.type === 'launch-failed')
        add('failed launch', { ...at, detail: `${e.nodeClaim}: ${e.reason}` });
      else if (e.type === 'node-failure') add('node failure', { ...at, detail: e.node });
    }
  }
  return {
    kind: 'events',
    id: 'events',
    title: 'Disruptions, interruptions, failed launches and node failures',
    runs: runs.map((r) => r.id),
    series: [...series.keys()].sort().map((label) => ({ label, points: series.get(label)! })),
  };
}

function hours(seconds: number): number {
  return Math.round((seconds / 3600) * 1e6) / 1e6;
}

function percent(requested: number, allocatable: number): number | null {
  return allocatable > 0 ? Math.round((requested / allocatable) * 10000) / 100 : null;
}
