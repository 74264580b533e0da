/**
 * `npm run bench` (node dist/main.js [--quick] [--large] [--only <case-prefix>[,<prefix>...]]
 * [--solver wasm|ts] [--baseline <scheduling dist index.js>] [--out <file name>]): runs the
 * scheduling benchmark and writes results/scheduling.json (or results/<file name>). `--quick`
 * keeps the diverse sizes up to 2,000 pods; `--large` adds `diverse-200000` and
 * `pending-generic-200000`, measured by one cold solve per solver. `--baseline` also measures
 * another build of @karpenter-ts/scheduling (e.g. the previous commit's dist, from a directory
 * where its own dependencies resolve), interleaved case by case with this one, and prints the
 * ratios. Exits non-zero when any pod stays unscheduled in a case that must schedule all, or
 * when solvers or builds disagree on the node and pending counts of a case.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measureCase, type SchedulerClass, type SchedulingCaseResult } from './scheduling-bench.js';
import type { NodePool } from '@karpenter-ts/api';
import {
  DIVERSE_SIZES,
  diversePods,
  genericPods,
  LARGE_DIVERSE_SIZE,
  LARGE_PENDING_SIZE,
  largeBenchmarkNodePool,
  PENDING_SIZES,
  pendingNodePool,
  preferencePods,
} from './scheduling-workload.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Baseline over current of one case and solver: above 1 means the current build is faster. */
interface BuildRatio {
  case: string;
  solver: 'wasm' | 'ts';
  /** Median wall seconds per solve. */
  wall: number;
  /** CPU seconds per timed solve. */
  cpu: number;
  /** CPU seconds of the cold first solve. */
  firstSolveCpu: number;
}

interface BenchCase {
  name: string;
  pods: () => ReturnType<typeof diversePods>;
  policy: 'Respect' | 'Ignore';
  nodePool?: NodePool;
  onlyFirstSolve?: boolean;
  allowPending?: boolean;
}

function cases(quick: boolean, large: boolean): BenchCase[] {
  const sizes = DIVERSE_SIZES.filter((n) => !quick || n <= 2000);
  const pending = (name: string, pods: BenchCase['pods'], policy: BenchCase['policy']) => ({
    name,
    pods,
    policy,
    nodePool: pendingNodePool(),
    allowPending: true,
  });
  return [
    ...sizes.map((n) => ({
      name: `diverse-${n}`,
      pods: () => diversePods(n),
      policy: 'Respect' as const,
    })),
    { name: 'preferences-respect', pods: () => preferencePods(), policy: 'Respect' },
    { name: 'preferences-ignore', pods: () => preferencePods(), policy: 'Ignore' },
    ...PENDING_SIZES.flatMap((n) => [
      pending(`pending-generic-${n}`, () => genericPods(n), 'Respect'),
      pending(`pending-diverse-${n}`, () => diversePods(n), 'Respect'),
    ]),
    pending('pending-preferences', () => preferencePods(), 'Respect'),
    ...(large
      ? [
          {
            name: `diverse-${LARGE_DIVERSE_SIZE}`,
            pods: () => diversePods(LARGE_DIVERSE_SIZE),
            policy: 'Respect' as const,
            nodePool: largeBenchmarkNodePool(),
            onlyFirstSolve: true,
          },
          {
            ...pending(
              `pending-generic-${LARGE_PENDING_SIZE}`,
              () => genericPods(LARGE_PENDING_SIZE),
              'Respect',
            ),
            onlyFirstSolve: true,
          },
        ]
      : []),
  ];
}

/** The `Scheduler` export of another build's index.js. */
async function loadBaseline(path: string): Promise<SchedulerClass> {
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { Scheduler?: SchedulerClass };
  if (typeof mod.Scheduler !== 'function') {
    throw new Error(`--baseline ${path}: the module exports no Scheduler class`);
  }
  return mod.Scheduler;
}

function line(r: SchedulingCaseResult): string {
  return (
    `${r.name.padEnd(24)} ${r.solver.padEnd(4)} ${r.build.padEnd(8)} pods=${String(r.pods).padStart(6)} ` +
    `nodes=${String(r.nodes).padStart(5)} pending=${String(r.pendingPods).padStart(6)} ` +
    `${(r.secondsPerSolve * 1000).toFixed(1).padStart(8)} ms/solve (cpu ${(r.cpuSecondsPerSolve * 1000).toFixed(1)}) ` +
    `${Math.round(r.podsPerSecond).toString().padStart(7)} pods/s ` +
    `first=${(r.firstSolveSeconds * 1000).toFixed(0)}ms (cpu ${(r.firstSolveCpuSeconds * 1000).toFixed(0)}ms) ` +
    `heap=${(r.peakHeapBytes / 2 ** 20).toFixed(0)}MiB rss=${(r.maxRssBytes / 2 ** 20).toFixed(0)}MiB`
  );
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const large = process.argv.includes('--large');
  const only = arg('--only')?.split(',');
  const solvers = (arg('--solver') ? [arg('--solver')] : ['wasm', 'ts']) as ('wasm' | 'ts')[];
  const outName = arg('--out') ?? 'scheduling.json';
  if (basename(outName) !== outName) {
    throw new Error(`--out takes a file name in results/, got ${outName}`);
  }
  const baselinePath = arg('--baseline');
  const builds: { build: 'current' | 'baseline'; scheduler?: SchedulerClass }[] = [
    { build: 'current' },
  ];
  if (baselinePath !== undefined) {
    builds.push({ build: 'baseline', scheduler: await loadBaseline(baselinePath) });
  }
  const results: SchedulingCaseResult[] = [];
  const ratios: BuildRatio[] = [];
  let disagreements = 0;
  for (const c of cases(quick, large)) {
    if (only !== undefined && !only.some((prefix) => c.name.startsWith(prefix))) continue;
    const pods = c.pods();
    const ofCase: SchedulingCaseResult[] = [];
    for (const solver of solvers) {
      for (const b of builds) {
        const r = await measureCase(c.name, pods, solver, c.policy, quick ? 1000 : 3000, {
          ...(c.nodePool === undefined ? {} : { nodePool: c.nodePool }),
          ...(c.onlyFirstSolve === true ? { onlyFirstSolve: true } : {}),
          ...(c.allowPending === true ? { allowPending: true } : {}),
          ...(b.scheduler === undefined ? {} : { scheduler: b.scheduler }),
          build: b.build,
        });
        ofCase.push(r);
        results.push(r);
        console.log(line(r));
      }
    }
    const [first] = ofCase;
    for (const r of ofCase) {
      if (first !== undefined && (r.nodes !== first.nodes || r.pendingPods !== first.pendingPods)) {
        console.error(
          `${c.name}: ${r.solver}/${r.build} gives ${r.nodes} nodes and ${r.pendingPods} pending, ${first.solver}/${first.build} ${first.nodes} and ${first.pendingPods}`,
        );
        disagreements++;
      }
    }
    if (baselinePath !== undefined) {
      for (const solver of solvers) {
        const cur = ofCase.find((r) => r.solver === solver && r.build === 'current');
        const base = ofCase.find((r) => r.solver === solver && r.build === 'baseline');
        if (cur === undefined || base === undefined) continue;
        const ratio: BuildRatio = {
          case: c.name,
          solver,
          wall: base.secondsPerSolve / cur.secondsPerSolve,
          cpu: base.cpuSecondsPerSolve / cur.cpuSecondsPerSolve,
          firstSolveCpu: base.firstSolveCpuSeconds / cur.firstSolveCpuSeconds,
        };
        ratios.push(ratio);
        console.log(
          `  ${c.name} ${solver}: baseline / current = ${ratio.wall.toFixed(2)}x wall, ${ratio.cpu.toFixed(2)}x cpu per solve, ${ratio.firstSolveCpu.toFixed(2)}x cpu first solve`,
        );
      }
    }
  }
  const cpu = cpus()[0];
  const out = {
    machine: {
      cpu: cpu?.model ?? 'unknown',
      cores: cpus().length,
      memoryBytes: totalmem(),
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
    },
    date: new Date().toISOString(),
    quick,
    large,
    ...(baselinePath === undefined ? {} : { baseline: baselinePath, ratios }),
    cases: results,
  };
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, outName);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${file}`);
  if (disagreements > 0) process.exit(1);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
