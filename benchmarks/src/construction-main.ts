/**
 * `npm run bench:construction -w @karpenter-ts/benchmarks` (node dist/construction-main.js
 * [--pools N[,N...]] [--baseline <scheduling dist index.js>] [--out <file name>]): the cost of
 * building a Scheduler over many NodePools, as a provisioning pass does before every solve.
 * Each NodePool is the reference pool with its own name and a NoSchedule taint, on the 400
 * reference instance types (each offered in 3 zones × 2 capacity types). Measured with
 * tinybench; writes results/construction.json (default). `--baseline` measures another build
 * of @karpenter-ts/scheduling interleaved with this one and prints the ratios.
 */
import { Scheduler, type SchedulerOptions } from '@karpenter-ts/scheduling';
import { nodePool } from '@karpenter-ts/scheduling/testing';
import { Bench } from 'tinybench';
import { baselineScheduler, cliArg, resultsFile, writeSideBySide } from './side-by-side.js';
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
  const poolCounts = (cliArg('--pools') ?? '10,100,400').split(',').map(Number);
  const out = resultsFile(cliArg('--out') ?? 'construction.json');
  const baselinePath = cliArg('--baseline');
  const builds: [SchedulerClass, ConstructionResult['build']][] = [[Scheduler, 'current']];
  if (baselinePath !== undefined) {
    builds.push([await baselineScheduler<SchedulerClass>(baselinePath), 'baseline']);
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
  writeSideBySide(out, baselinePath, ratios, results);
  console.log(`wrote ${out}`);
}

await main();
