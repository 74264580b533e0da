/**
 * `npm run bench:large-backlog` (node dist/large-backlog-main.js [--scales 2,10,50]
 * [--baseline <other build's apps/cli/dist/main.js>] [--out <file>]): the CLI's `simulate` of
 * `scenarios/large-backlog.yaml` (a zone-spread Deployment of 1,000 pods × scale under a
 * 2,000-cpu NodePool limit, so most pods stay pending through every provisioning round), each
 * run one tinybench iteration of a child process under `/usr/bin/time` (CPU seconds, wall
 * seconds, peak RSS of the whole command). With `--baseline` every scale runs the baseline build
 * and then this one, side by side, and the run fails (exit 1) unless their `-o json` outputs are
 * byte-identical. Writes results/large-backlog.json.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';

const root = fileURLToPath(new URL('..', import.meta.url));
const scenario = join(root, 'scenarios/large-backlog.yaml');
const current = join(root, '../apps/cli/dist/main.js');

/** One `simulate` run of one build at one scale. */
interface LargeBacklogResult {
  readonly build: 'current' | 'baseline';
  readonly scale: number;
  /** Pods the input expands to (1,000 × scale). */
  readonly pods: number;
  readonly wallSeconds: number;
  /** User + system CPU of the child process, seconds. */
  readonly cpuSeconds: number;
  /** Peak resident set of the child process, bytes. */
  readonly maxRssBytes: number;
  readonly rounds: number;
  readonly nodeClaims: number;
  readonly pendingPods: number;
  /** sha256 of the `-o json` output. */
  readonly outputSha256: string;
  /** 1-minute load average at the start and end of the run. */
  readonly loadAverage: readonly number[];
}

const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Runs `main simulate` once under tinybench and /usr/bin/time. */
async function measure(
  build: 'current' | 'baseline',
  main: string,
  scale: number,
): Promise<LargeBacklogResult> {
  let time = '';
  let output = '';
  const loadBefore = round(loadavg()[0] ?? 0);
  const bench = new Bench({ iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 });
  bench.add(`${build} --scale ${scale}`, () => {
    const r = spawnSync(
      '/usr/bin/time',
      [
        '-f',
        '%U %S %M',
        process.execPath,
        main,
        'simulate',
        scenario,
        '--scale',
        String(scale),
      ].concat(['-o', 'json']),
      { encoding: 'utf8', maxBuffer: 2 ** 30 },
    );
    if (r.status !== 0) throw new Error(`${build} --scale ${scale}: exit ${r.status}: ${r.stderr}`);
    output = r.stdout;
    time = r.stderr.trim().split('\n').at(-1) ?? '';
  });
  await bench.run();
  const ms = (bench.tasks[0]?.result as { latency?: { p50?: number } } | undefined)?.latency?.p50;
  const [user, sys, rssKb] = time.split(' ').map(Number);
  if (ms === undefined || user === undefined || sys === undefined || rssKb === undefined)
    throw new Error(`${build} --scale ${scale}: no timing (${time})`);
  const json = JSON.parse(output) as {
    rounds: number;
    nodeClaims: unknown[];
    podErrors: unknown[];
  };
  return {
    build,
    scale,
    pods: 1000 * scale,
    wallSeconds: round(ms / 1000),
    cpuSeconds: round(user + sys),
    maxRssBytes: rssKb * 1024,
    rounds: json.rounds,
    nodeClaims: json.nodeClaims.length,
    pendingPods: json.podErrors.length,
    outputSha256: createHash('sha256').update(output).digest('hex'),
    loadAverage: [loadBefore, round(loadavg()[0] ?? 0)],
  };
}

const scales = (flag('--scales') ?? '2,10').split(',').map(Number);
const baseline = flag('--baseline');
const results: LargeBacklogResult[] = [];
let mismatch = false;
for (const scale of scales) {
  const pair: LargeBacklogResult[] = [];
  if (baseline !== undefined) pair.push(await measure('baseline', baseline, scale));
  pair.push(await measure('current', current, scale));
  for (const r of pair) {
    results.push(r);
    process.stdout.write(
      `${r.build} --scale ${r.scale} (${r.pods} pods): ${r.cpuSeconds} s CPU, ${r.wallSeconds} s wall, rss ${(r.maxRssBytes / 2 ** 20).toFixed(0)} MiB, ${r.rounds} rounds, ${r.nodeClaims} node claims, ${r.pendingPods} pending, load ${r.loadAverage.join(' -> ')}\n`,
    );
  }
  if (pair.length === 2 && pair[0]?.outputSha256 !== pair[1]?.outputSha256) {
    process.stdout.write(`--scale ${scale}: outputs differ between the builds\n`);
    mismatch = true;
  }
}
mkdirSync(join(root, 'results'), { recursive: true });
writeFileSync(
  flag('--out') ?? join(root, 'results', 'large-backlog.json'),
  `${JSON.stringify({ machine: { cpus: cpus()[0]?.model, cores: cpus().length, totalMemoryBytes: totalmem(), node: process.version }, results }, null, 2)}\n`,
);
if (mismatch) process.exitCode = 1;
