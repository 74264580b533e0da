/**
 * The HTML report, outside a browser: what each chart is given, the summary table comparing a
 * baseline run with Karpenter on the same cloud, the page holding everything it needs inline,
 * and `karpenter-ts-sim report` merging measures files. (The browser test, test/e2e, checks that
 * the charts draw.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIo } from '@karpenter-ts/cli';
import { run } from '../src/program.js';
import {
  OUTPUT_FORMAT,
  mergeOutputs,
  reportData,
  reportHtml,
  summaryRows,
  SUMMARY_COLUMNS,
  type ReportLineChart,
  type ReportPage,
  type RunOutput,
  type Sample,
  type SimulationOutput,
} from '../src/index.js';
import { writeFiles } from './support.js';

const counters = {
  disruptions: {},
  evictions: 0,
  interruptions: 0,
  failedLaunches: 0,
  nodeFailures: 0,
  nodesLaunched: 0,
  nodesTerminated: 0,
  podsCreated: 0,
  podsCompleted: 0,
};

/** A sample at `t` seconds with these nodes (`type capacity` → count) and values. */
function sample(t: number, nodes: Record<string, number>, o: Partial<Sample> = {}): Sample {
  const byType: Record<string, Record<string, number>> = {};
  for (const [key, n] of Object.entries(nodes)) {
    const [type, capacity] = key.split(' ') as [string, string];
    (byType[type] ??= {})[capacity] = n;
  }
  return {
    t,
    nodes: Object.values(nodes).reduce((a, b) => a + b, 0),
    nodesByInstanceType: byType,
    nodesByCapacityType: {},
    usdPerHour: 1,
    usdSpent: t / 3600,
    pendingPods: 0,
    runningPods: 0,
    requested: { cpu: 500, memory: 2 ** 30 },
    allocatable: { cpu: 1000, memory: 4 * 2 ** 30 },
    timeToBound: null,
    counters,
    ...o,
  };
}

/** A run of `autoscaler` on `cloud` that spent `usd`. */
function runOf(autoscaler: string, cloud: string, usd: number, samples: Sample[]): RunOutput {
  return {
    id: `${autoscaler}/${cloud}/r1`,
    autoscaler,
    cloud,
    region: 'r1',
    nodeStartup: { launchSeconds: 0, bootSeconds: 30, registrationSeconds: 0 },
    summary: {
      usdSpent: usd,
      usdPerHour: { mean: usd, peak: usd },
      nodes: { peak: 2, final: 1 },
      finalNodesByInstanceType: {},
      pendingPods: { peak: 0, final: 0 },
      timeToBound: null,
      utilization: { cpu: 0.5, memory: 0.25 },
      counters,
      ticks: 10,
    },
    samples,
    events: [
      { t: 60, type: 'interruption', node: 'n1', instanceType: 'm6i.large', zone: 'z1' },
      { t: 90, type: 'eviction', pod: 'default/a' },
      {
        t: 120,
        type: 'disruption',
        reason: 'Empty',
        decision: 'delete',
        nodes: ['n2'],
        replacements: 0,
      },
    ],
    notes: ['a note <with markup>'],
  };
}

function outputOf(runs: RunOutput[], name = 'day'): SimulationOutput {
  return {
    format: OUTPUT_FORMAT,
    scenario: {
      name,
      file: 'day.yaml',
      seed: 1,
      start: '2025-01-06T00:00:00.000Z',
      durationSeconds: 3600,
      sampleSeconds: 1800,
    },
    runs,
  };
}

const samples = [
  sample(0, { 'm6i.large on-demand': 1 }),
  sample(
    1800,
    { 'm6i.large on-demand': 1, 'm6i.large spot': 2 },
    {
      timeToBound: { count: 3, p50: 40, p95: 55, p99: 55, max: 55 },
    },
  ),
  sample(3600, { 'c6i.xlarge spot': 1 }, { allocatable: { cpu: 0, memory: 0 } }),
];

describe('report data', () => {
  const data = reportData(outputOf([runOf('karpenter', 'aws', 10, samples)]));
  const line = (id: string) => data.charts.find((c) => c.id === id) as ReportLineChart;

  it('stacks one series per instance type and capacity type seen in any sample, 0 where absent', () => {
    const nodes = line('nodes-0');
    expect(nodes.stacked).toBe(true);
    expect(nodes.series.map((s) => s.label)).toEqual([
      'c6i.xlarge spot',
      'm6i.large on-demand',
      'm6i.large spot',
    ]);
    expect(nodes.series[2]!.points).toEqual([
      [0, 0],
      [0.5, 2],
      [1, 0],
    ]);
  });

  it('leaves a gap in time to bound where no pod was bound, and in utilization while nothing is allocatable', () => {
    expect(line('time-to-bound').series.map((s) => s.points.map(([, v]) => v))).toEqual([
      [null, 55, null],
      [null, 40, null],
    ]);
    expect(line('utilization-cpu').series[0]!.points.map(([, v]) => v)).toEqual([50, 50, null]);
    expect(line('utilization-memory').series[0]!.points.map(([, v]) => v)).toEqual([25, 25, null]);
  });

  it('marks interruptions and disruptions on the timeline, not evictions', () => {
    const events = data.charts.find((c) => c.id === 'events')!;
    expect(events.series.map((s) => [s.label, s.points.length])).toEqual([
      ['disruption: Empty', 1],
      ['spot interruption', 1],
    ]);
  });
});

describe('summary table', () => {
  it('gives a baseline run its cost relative to Karpenter on the same cloud and region', () => {
    const rows = summaryRows(
      outputOf([
        runOf('karpenter', 'aws', 10, samples),
        runOf('cluster-autoscaler', 'aws', 12.5, samples),
        runOf('cluster-autoscaler', 'azure', 9, samples),
      ]),
    );
    const vs = SUMMARY_COLUMNS.indexOf('vs Karpenter');
    expect(rows.map((r) => [r[0], r[vs]])).toEqual([
      ['karpenter/aws/r1', '-'],
      ['cluster-autoscaler/aws/r1', '+25.0%'],
      ['cluster-autoscaler/azure/r1', '-'],
    ]);
  });
});

describe('the HTML page', () => {
  const html = reportHtml(outputOf([runOf('karpenter', 'aws', 10, samples)]));

  it('holds Chart.js, its script and its data inline, loading nothing from anywhere', () => {
    expect(html).toContain('Chart.js v4.6.1');
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    expect(html).not.toMatch(/@import|url\(\s*['"]?https?:/i);
    const data = /<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html);
    expect(JSON.parse(data![1]!).sections[0].charts).toHaveLength(8);
  });

  it('escapes text from the measures', () => {
    expect(html).toContain('a note &lt;with markup&gt;');
    expect(html).not.toContain('<with markup>');
  });
});

describe('karpenter-ts-sim report', () => {
  it('writes one page from several measures files of one scenario', async () => {
    const dir = writeFiles({
      'a.json': JSON.stringify(outputOf([runOf('karpenter', 'aws', 10, samples)])),
      'b.json': JSON.stringify(outputOf([runOf('cluster-autoscaler', 'aws', 12, samples)])),
    });
    const io = memoryIo();
    const out = join(dir, 'r.html');
    expect(await run(['report', join(dir, 'a.json'), join(dir, 'b.json'), '-o', out], io)).toBe(0);
    expect(io.stderr).toBe(`karpenter-ts-sim: wrote ${out} (2 runs)\n`);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('cluster-autoscaler/aws/r1');
    expect(page).toContain('+20.0%');
  });

  it('puts files of several scenarios on one page: one table grouped by scenario, each its own charts', async () => {
    const night = {
      ...outputOf([], 'night'),
      scenario: { ...outputOf([], 'night').scenario, durationSeconds: 7200 },
    };
    const dir = writeFiles({
      'sweep/day/a.json': JSON.stringify(outputOf([runOf('karpenter', 'aws', 10, samples)])),
      'sweep/day/b.json': JSON.stringify(
        outputOf([runOf('cluster-autoscaler', 'aws', 12, samples)]),
      ),
      'sweep/night/a.json': JSON.stringify({
        ...night,
        runs: [runOf('karpenter', 'aws', 20, samples)],
      }),
      'sweep/night/b.json': JSON.stringify({
        ...night,
        runs: [runOf('cluster-autoscaler', 'aws', 15, samples)],
      }),
    });
    const io = memoryIo();
    const out = join(dir, 'r.html');
    // A folder stands for the .json files in it and its subfolders (a sweep's output folder).
    expect(await run(['report', join(dir, 'sweep'), '-o', out], io)).toBe(0);
    expect(io.stderr).toBe(`karpenter-ts-sim: wrote ${out} (4 runs of 2 scenarios)\n`);
    const page = readFileSync(out, 'utf8');
    const bodies = [...page.matchAll(/<tbody data-scenario="([^"]+)">(.*?)<\/tbody>/gs)].map(
      ([, name, rows]) => [
        name,
        [...rows!.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map(
          ([, a, b]) => `${a} ${b}`,
        ),
      ],
    );
    expect(bodies).toEqual([
      ['day', ['day karpenter/aws/r1', 'day cluster-autoscaler/aws/r1']],
      ['night', ['night karpenter/aws/r1', 'night cluster-autoscaler/aws/r1']],
    ]);
    // vs Karpenter compares within a scenario: day +20.0%, night -25.0%.
    expect(page).toContain('<td>+20.0%</td>');
    expect(page).toContain('<td>-25.0%</td>');
    const data = JSON.parse(
      /<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(page)![1]!,
    ) as ReportPage;
    expect(data.sections.map((s) => [s.scenario, s.durationHours, s.charts[0]!.id])).toEqual([
      ['day', 1, 'day/cost-rate'],
      ['night', 2, 'night/cost-rate'],
    ]);
    for (const s of data.sections)
      for (const c of s.charts) expect(page).toContain(`<figure data-chart="${c.id}"`);
  });

  it('refuses files of one scenario name that do not share its time axis, naming the file and the field', async () => {
    const other = outputOf([runOf('karpenter', 'azure', 10, samples)]);
    const dir = writeFiles({
      'a.json': JSON.stringify(outputOf([runOf('karpenter', 'aws', 10, samples)])),
      'b.json': JSON.stringify({ ...other, scenario: { ...other.scenario, sampleSeconds: 60 } }),
    });
    const io = memoryIo();
    expect(await run(['report', join(dir, 'a.json'), join(dir, 'b.json')], io)).toBe(1);
    expect(io.stderr).toBe(
      `karpenter-ts-sim: error: ${join(dir, 'b.json')} scenario.sampleSeconds: 60 differs from 1800 in ${join(dir, 'a.json')} (runs of one scenario share its time axis)\n`,
    );
  });

  it('refuses a file that is not a measures file', async () => {
    const dir = writeFiles({ 'x.json': '{"format": "other"}' });
    const io = memoryIo();
    expect(await run(['report', join(dir, 'x.json')], io)).toBe(1);
    expect(io.stderr).toBe(
      `karpenter-ts-sim: error: ${join(dir, 'x.json')} format: expected "karpenter-ts-sim/v1" (a karpenter-ts-sim result.json), got "other"\n`,
    );
  });

  it('refuses the same run twice', () => {
    const a = outputOf([runOf('karpenter', 'aws', 10, samples)]);
    expect(() =>
      mergeOutputs([
        { file: 'a.json', output: a },
        { file: 'b.json', output: a },
      ]),
    ).toThrow('b.json runs: run karpenter/aws/r1 is also in a.json');
  });
});
