/**
 * `npm run bench:construction -w @karpenter-ts/benchmarks` (node dist/construction-main.js
 * [--pools N[,N...]] [--baseline <scheduling dist index.js>] [--out <file name>]): the cost of
 * building a Scheduler over many NodePools, as a provisioning pass does before every solve.
 * Each NodePool is the reference pool with its own name and a NoSchedule taint, on the 400
 * reference instance types (each offered in 3 zones × 2 capacity types). Measured with
 * tinybench; writes results/construction.json (default). `--baseline` measures another build
 * of @karpenter-ts/scheduling interleaved with this one and prints the ratios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Scheduler, type SchedulerOptions } from '@karpenter-ts/scheduling';
import { nodePool } from '@karpenter-ts/scheduling/testing';
import { Bench } from 'tinybench';
import { benchmarkInstanceTypes } from './scheduling-workload.js';

type SchedulerClass = new (options: SchedulerOptions) => unknown;

/** One measured case, as written to results/construction.json. */
interface ConstructionResult {
  pools: number;
  /** (NodePool, instance type) pairs of the catalog. */
  pairs: number;
  build: 'current' | 'baseline';
  /** Median seconds to build one Scheduler. */
  secondsPerScheduler: number;
  iterations: number;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Scheduler options of `n` tainted reference NodePools sharing the reference catalog. */
function options(n: number): SchedulerOptions {
  const types = benchmarkInstanceTypes();
  const nodePools = Array.from({ length: n }, (_, i) =>
    nodePool({
      name: `pool-${i}`,
      taints: [{ key: 'example.com/dedicated', value: 'web', effect: 'NoSchedule' }],
    }),
  );
  return {
    nodePools,
    instanceTypes: new Map(nodePools.map((p) => [p.metadata.name ?? '', types])),
  };
}

async function measure(
  Build: SchedulerClass,
  build: ConstructionResult['build'],
  pools: number,
): Promise<ConstructionResult> {
  const opts = options(pools);
  const bench = new Bench({ iterations: 3, time: 0, warmupIterations: 1, warmupTime: 0 });
  bench.add(`${pools}/${build}`, () => {
    new Build(opts);
  });
  await bench.run();
  const p50 = (bench.tasks[0]?.result as { latency?: { p50?: number } } | undefined)?.latency?.p50;
  if (p50 === undefined) throw new Error(`${pools} pools (${build}): tinybench gave no latency`);
  return {
    pools,
    pairs: pools * (opts.instanceTypes.get('pool-0')?.length ?? 0),
    build,
    secondsPerScheduler: p50 / 1000,
    iterations: (bench.tasks[0]?.runs as number | undefined) ?? 0,
  };
}

async function main(): Promise<void> {
  const poolCounts = (arg('--pools') ?? '10,100,400').split(',').map(Number);
  const outName = arg('--out') ?? 'construction.json';
  if (basename(outName) !== outName) throw new Error(`--out takes a file name, got ${outName}`);
  const baselinePath = arg('--baseline');
  const builds: [SchedulerClass, ConstructionResult['build']][] = [[Scheduler, 'current']];
  if (baselinePath !== undefined) {
    const mod = (await import(pathToFileURL(resolve(baselinePath)).href)) as {
      Scheduler?: SchedulerClass;
    };
    if (typeof mod.Scheduler !== 'function')
      throw new Error(`--baseline ${baselinePath}: the module exports no Scheduler class`);
    builds.push([mod.Scheduler, 'baseline']);
  }
  const results: ConstructionResult[] = [];
  const ratios: Record<string, number> = {};
  for (const pools of poolCounts) {
    for (const [Build, build] of builds) {
      const r = await measure(Build, build, pools);
      results.push(r);
      console.log(
        `${String(pools).padStart(5)} pools ${String(r.pairs).padStart(7)} pairs ${build.padEnd(8)} ${(r.secondsPerScheduler * 1000).toFixed(0).padStart(7)} ms/scheduler`,
      );
    }
    const [current, baseline] = results.slice(-2);
    if (baselinePath !== undefined && current && baseline) {
      ratios[String(pools)] = baseline.secondsPerScheduler / current.secondsPerScheduler;
      console.log(`      baseline / current = ${ratios[String(pools)]?.toFixed(2)}x`);
    }
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', outName);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...(baselinePath === undefined ? {} : { baseline: baselinePath, ratios }), cases: results }, null, 2)}\n`,
  );
  console.log(`wrote ${out}`);
}

await main();
