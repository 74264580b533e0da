/// <reference lib="dom" />
/**
 * The HTML report in a real browser: `karpenter-ts-sim run --out` (the built command) writes the
 * report of a one-hour scenario on AWS with a scale-up, a spot interruption and a scale-down;
 * Debian's headless Chromium (driven by playwright-core) opens the file with every network
 * request refused, and every chart must have drawn every point of the measures JSON, with no
 * console error. A full-page screenshot is kept in test-artifacts/report.png. Then a sweep of two
 * scenarios (one under Karpenter and the Cluster Autoscaler model, one under Karpenter) writes one
 * report: a summary table with every case grouped by scenario, and each scenario's charts drawn
 * with every point of its cases' files (test-artifacts/sweep-report.png).
 *
 * Cost: four short runs (one hour, three of 30 minutes), Chromium's start and two pages: 108 s
 * measured at a load average above 20.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulationOutput } from '../../src/index.js';
import { awsNodePool, BOUTIQUE, scenarioYaml, writeFiles, writeScenario } from '../support.js';

const APP = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const REPO = resolve(APP, '../..');
const ARTIFACTS = join(APP, 'test-artifacts');

let browser: Browser;
let output: SimulationOutput;
let reportFile: string;
let sweepOut: string;

beforeAll(async () => {
  const executablePath = execFileSync('bash', [join(REPO, 'tools/chromium/install.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .pop()!;
  const scenario = writeScenario(
    scenarioYaml(
      `clouds:
  - {cloud: aws, region: us-east-1, manifests: [pools.yaml]}
sample: 1m
events:
  - {type: replicas, at: 5m, workload: frontend, replicas: 12}
  - {type: spotInterruptions, at: [20m], nodePool: spot}
  - {type: replicas, at: 35m, workload: frontend, replicas: 1}
`,
      { duration: '1h' },
    ),
    {
      'pools.yaml': awsNodePool('spot', {
        instanceTypes: ['m6i.large', 'm6i.xlarge', 'c6i.2xlarge'],
        capacityTypes: ['spot'],
      }),
    },
  );
  const out = join(scenario, '..', 'out');
  execFileSync(process.execPath, [join(APP, 'dist/main.js'), 'run', scenario, '--out', out, '-q'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  output = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as SimulationOutput;
  reportFile = join(out, 'report.html');
  sweepOut = runSweep();
  // Root (as CI runs here) needs --no-sandbox.
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
});

/**
 * Writes two 30-minute AWS scenarios, `rush` (a scale-up and back, under Karpenter and the
 * Cluster Autoscaler model) and `batch` (a wave of Jobs, under Karpenter), and a sweep over both;
 * runs the built `karpenter-ts-sim sweep` and returns its output folder.
 */
function runSweep(): string {
  const header = (name: string, autoscalers: string) => `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: ${name}
duration: 30m
sample: 1m
manifests: [${BOUTIQUE}]
clouds:
  - {cloud: aws, region: us-east-1, manifests: [pools.yaml]}
autoscalers: [${autoscalers}]
`;
  const dir = writeFiles({
    'rush.yaml': `${header('rush', 'karpenter, cluster-autoscaler')}events:
  - {type: replicas, at: 2m, workload: frontend, replicas: 10}
  - {type: replicas, at: 15m, workload: frontend, replicas: 1}
`,
    'batch.yaml': `${header('batch', 'karpenter')}events:
  - {type: jobs, name: etl, at: 3m, count: 4, runTime: 10m, requests: {cpu: "2", memory: 4Gi}}
`,
    'pools.yaml': awsNodePool('general', {
      instanceTypes: ['m6i.large', 'm6i.xlarge', 'm6i.2xlarge'],
    }),
    'sweep.yaml': `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Sweep
name: two-scenarios
scenarios: [rush.yaml, batch.yaml]
`,
  });
  const out = join(dir, 'out');
  execFileSync(
    process.execPath,
    [
      join(APP, 'dist/main.js'),
      'sweep',
      join(dir, 'sweep.yaml'),
      '--out',
      out,
      '--workers',
      '2',
      '-q',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return out;
}

/**
 * Chart id → points each series must draw, counted from the JSON (not from the report's code);
 * `prefix` starts every id (a page of several scenarios: the scenario name and a slash).
 */
function expectedPoints(o: SimulationOutput, prefix = ''): Record<string, number[]> {
  const runs = o.runs;
  const all = (pick: (s: SimulationOutput['runs'][number]['samples'][number]) => boolean) =>
    runs.map((r) => r.samples.filter(pick).length);
  const out: Record<string, number[]> = {
    'cost-rate': all(() => true),
    'cost-spent': all(() => true),
    pending: all(() => true),
    'time-to-bound': runs.flatMap((r) => {
      const n = r.samples.filter((s) => s.timeToBound !== null).length;
      return [n, n];
    }),
    'utilization-cpu': all((s) => s.allocatable.cpu > 0),
    'utilization-memory': all((s) => s.allocatable.memory > 0),
  };
  runs.forEach((r, i) => {
    const kinds = new Set<string>();
    for (const s of r.samples)
      for (const [type, byCapacity] of Object.entries(s.nodesByInstanceType))
        for (const capacity of Object.keys(byCapacity)) kinds.add(`${type} ${capacity}`);
    out[`nodes-${i}`] = [...kinds].map(() => r.samples.length);
  });
  const events = new Map<string, number>();
  for (const r of runs)
    for (const e of r.events) {
      const kind =
        e.type === 'disruption'
          ? `disruption: ${e.reason}`
          : e.type === 'interruption'
            ? 'spot interruption'
            : e.type === 'launch-failed'
              ? 'failed launch'
              : e.type === 'node-failure'
                ? 'node failure'
                : undefined;
      if (kind !== undefined) events.set(kind, (events.get(kind) ?? 0) + 1);
    }
  out.events = [...events.keys()].sort().map((k) => events.get(k)!);
  return Object.fromEntries(Object.entries(out).map(([id, counts]) => [`${prefix}${id}`, counts]));
}

/** Opens `file` with every network request refused; the errors logged and requests refused. */
async function openReport(
  file: string,
): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => 'karpenterTsReport' in window);
  return { page, errors, requests };
}

/** Chart id → points each series drew, as the page recorded them. */
async function drawnPoints(
  page: Page,
): Promise<Record<string, { label: string; points: number }[]>> {
  return page.evaluate(
    () =>
      (
        window as unknown as {
          karpenterTsReport: { charts: Record<string, { label: string; points: number }[]> };
        }
      ).karpenterTsReport.charts,
  );
}

/** Pixels with ink on each canvas of the page, in page order. */
async function inkPerCanvas(page: Page): Promise<number[]> {
  return page.$$eval('figure canvas', (canvases) =>
    canvases.map((c) => {
      const canvas = c as HTMLCanvasElement;
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let ink = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) ink++;
      return ink;
    }),
  );
}

describe('the HTML report in headless Chromium', () => {
  it('draws every chart with every point of the JSON, needing no network and logging no error', async () => {
    const { page, errors, requests } = await openReport(reportFile);
    const drawn = await drawnPoints(page);
    const expected = expectedPoints(output);
    expect(Object.keys(drawn).sort()).toEqual(Object.keys(expected).sort());
    for (const [id, counts] of Object.entries(expected))
      expect(
        drawn[id]!.map((s) => s.points),
        `chart ${id}`,
      ).toEqual(counts);
    // The scenario made things happen: nodes of more than one kind, an interruption, a disruption.
    expect(expected['nodes-0']!.length).toBeGreaterThan(0);
    expect(drawn.events!.map((s) => s.label)).toContain('spot interruption');
    expect(drawn.events!.some((s) => s.label.startsWith('disruption: '))).toBe(true);

    // Every canvas has ink on it (not a blank chart).
    const inked = await inkPerCanvas(page);
    expect(inked.length).toBe(Object.keys(expected).length);
    for (const ink of inked) expect(ink).toBeGreaterThan(1000);

    // The summary table has one row per run.
    expect(await page.locator('table.summary tbody tr').count()).toBe(output.runs.length);

    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    await page.close();
  });

  it("draws a two-scenario sweep on one page: every case in the table, by scenario, and each scenario's charts", async () => {
    const files = (name: string) =>
      readdirSync(join(sweepOut, name))
        .sort()
        .map((f) => JSON.parse(readFileSync(join(sweepOut, name, f), 'utf8')) as SimulationOutput);
    const scenarios = { rush: files('rush'), batch: files('batch') };
    expect(scenarios.rush).toHaveLength(2);
    expect(scenarios.batch).toHaveLength(1);

    const { page, errors, requests } = await openReport(join(sweepOut, 'report.html'));
    const drawn = await drawnPoints(page);
    const expected: Record<string, number[]> = {};
    for (const [name, outputs] of Object.entries(scenarios))
      Object.assign(
        expected,
        expectedPoints({ ...outputs[0]!, runs: outputs.flatMap((o) => o.runs) }, `${name}/`),
      );
    expect(Object.keys(drawn).sort()).toEqual(Object.keys(expected).sort());
    for (const [id, counts] of Object.entries(expected))
      expect(
        drawn[id]!.map((s) => s.points),
        `chart ${id}`,
      ).toEqual(counts);
    const inked = await inkPerCanvas(page);
    expect(inked.length).toBe(Object.keys(expected).length);
    for (const ink of inked) expect(ink).toBeGreaterThan(1000);

    // One table: a row per case, grouped by scenario (in the sweep's order), naming its run.
    for (const [name, outputs] of Object.entries(scenarios)) {
      const rows = page.locator(`table.summary tbody[data-scenario="${name}"] tr`);
      expect(await rows.count()).toBe(outputs.length);
      expect((await rows.locator('td:nth-child(2)').allTextContents()).sort()).toEqual(
        outputs.map((o) => o.runs[0]!.id).sort(),
      );
    }
    expect(
      await page
        .locator('table.summary tbody')
        .evaluateAll((b) => b.map((e) => e.dataset.scenario)),
    ).toEqual(['rush', 'batch']);
    // The Cluster Autoscaler case is compared with Karpenter's in its own scenario.
    const vs = await page
      .locator('table.summary tbody[data-scenario="rush"] tr')
      .filter({ hasText: 'cluster-autoscaler/aws/us-east-1' })
      .locator('td:nth-child(6)')
      .textContent();
    expect(vs).toMatch(/^[+-]\d+\.\d%$/);

    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'sweep-report.png'), fullPage: true });
    await page.close();
  });
});
