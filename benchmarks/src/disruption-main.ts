/**
 * `npm run bench:disruption` (node --expose-gc dist/disruption-main.js [--large]
 * [--only <case-prefix>[,<prefix>...]] [--solver wasm|ts] [--out <file name>]
 * [--max-passes N] [--max-seconds S] [--first-pass-iterations N]): runs the disruption benchmark
 * (see `disruption-bench.ts`) for `disruption-5000` and `disruption-20000` (`--large` adds
 * `disruption-50000`) and writes results/disruption.json (or results/<file name>).
 * `--max-passes` and `--max-seconds` (default: no pass limit, 600 s per case) cap each case's
 * convergence loop; a capped case reports `converged: false`. Exits non-zero when the solvers
 * disagree on a decision.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureDisruption, type DisruptionCaseResult, type Solver } from './disruption-bench.js';
import { diversePods } from './scheduling-workload.js';

/** Pod counts of the cases; `--large` adds {@link LARGE_DISRUPTION_SIZE}. */
export const DISRUPTION_SIZES = [5000, 20000];
export const LARGE_DISRUPTION_SIZE = 50000;

const PASS_MARK = '@@pass@@';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function numberArg(name: string, fallback: number): number {
  const text = arg(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!(n > 0)) throw new Error(`${name} takes a positive number, got ${text}`);
  return n;
}

function summary(r: DisruptionCaseResult): string {
  const cv = r.convergence;
  const per = r.solvers
    .map((s) => {
      const st = cv[s];
      const fp = r.firstPass[s];
      return st === undefined || fp === undefined
        ? ''
        : `${s}: first ${fp.seconds.toFixed(2)} s, median ${st.medianSeconds.toFixed(2)} s, max ${st.maxSeconds.toFixed(1)} s, ${(st.secondsPerSimulation * 1000).toFixed(0)} ms/simulation`;
    })
    .join('; ');
  return (
    `${r.name}: ${cv.converged ? 'converged' : `stopped (${cv.stoppedBy})`} after ${cv.passes} passes, ${cv.commands} commands; ` +
    `${r.before.nodes} → ${r.after.nodes} nodes, ${r.before.usdPerHour.toFixed(2)} → ${r.after.usdPerHour.toFixed(2)} USD/h; ` +
    `from scratch ${r.fromScratch.nodes} nodes, ${r.fromScratch.usdPerHour.toFixed(2)} USD/h; ratio ${r.costRatio.toFixed(3)}; ${per}`
  );
}

async function main(): Promise<void> {
  const large = process.argv.includes('--large');
  const only = arg('--only')?.split(',');
  const solvers = (arg('--solver') ? [arg('--solver')] : ['wasm', 'ts']) as Solver[];
  for (const s of solvers) if (s !== 'wasm' && s !== 'ts') throw new Error(`unknown solver ${s}`);
  const outName = arg('--out') ?? 'disruption.json';
  if (basename(outName) !== outName) {
    throw new Error(`--out takes a file name in results/, got ${outName}`);
  }
  const maxPasses = numberArg('--max-passes', Infinity);
  const maxSeconds = numberArg('--max-seconds', 600);
  const firstPassIterations = numberArg('--first-pass-iterations', 5);
  const sizes = [...DISRUPTION_SIZES, ...(large ? [LARGE_DISRUPTION_SIZE] : [])];
  const results: DisruptionCaseResult[] = [];
  const load: number[] = [];
  const started = new Date().toISOString();
  for (const n of sizes) {
    const name = `disruption-${n}`;
    if (only !== undefined && !only.some((prefix) => name.startsWith(prefix))) continue;
    load.push(loadavg()[0] as number);
    const r = await measureDisruption(name, diversePods(n), {
      solvers,
      maxPasses,
      maxSeconds,
      firstPassIterations,
      log: (line) => console.log(line),
    });
    load.push(loadavg()[0] as number);
    results.push(r);
    console.log(summary(r));
  }
  const cpu = cpus()[0];
  const out = {
    benchmark: 'disruption',
    machine: {
      cpu: cpu?.model ?? 'unknown',
      cores: cpus().length,
      memoryBytes: totalmem(),
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
      /** 1-minute load average before and after each case. */
      loadAverage: load,
    },
    started,
    date: new Date().toISOString(),
    large,
    caps: { maxPasses: Number.isFinite(maxPasses) ? maxPasses : null, maxSeconds },
    cases: results,
  };
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, outName);
  // One line per pass record, so the per-pass log stays readable.
  const text = JSON.stringify(
    out,
    (key, value: unknown) =>
      key === 'passes' && Array.isArray(value)
        ? value.map((p) => `${PASS_MARK}${JSON.stringify(p)}`)
        : value,
    2,
  ).replace(new RegExp(`"${PASS_MARK}((?:[^"\\\\]|\\\\.)*)"`, 'g'), (_, s: string) =>
    JSON.parse(`"${s}"`),
  );
  writeFileSync(file, `${text}\n`);
  console.log(`wrote ${file}`);
  if (results.some((r) => !r.convergence.solversAgree)) process.exit(1);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
