/**
 * The scheduling benchmark: one `Scheduler.solve` per iteration over the reference workload,
 * with the WASM solver and with the TypeScript solver, measured with tinybench.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import { Scheduler, type SchedulingResults } from '@karpenter-ts/scheduling';
import { Bench } from 'tinybench';
import { benchmarkInstanceTypes, benchmarkNodePool } from './scheduling-workload.js';

/** One measured case, as written to results/scheduling.json. */
export interface SchedulingCaseResult {
  name: string;
  solver: 'wasm' | 'ts';
  pods: number;
  /** New node claims of one solve. */
  nodes: number;
  /** Median seconds per solve. */
  secondsPerSolve: number;
  podsPerSecond: number;
  /** V8 heap size (heapTotal) right after one solve started from a collected heap: an upper bound on the live peak. */
  peakHeapBytes: number;
  /** Seconds of the first (cold) solve of a fresh scheduler, pod caches empty. */
  firstSolveSeconds: number;
  /**
   * CPU seconds (user + system, all threads: GC helpers included) the process spent in the first
   * solve. Below `firstSolveSeconds` when other processes held the cores.
   */
  firstSolveCpuSeconds: number;
  /** The process's peak resident set size so far (bytes): every case before this one included. */
  maxRssBytes: number;
  /** Timed iterations behind the median. */
  iterations: number;
}

/** Thrown when a solve leaves any pod unscheduled: the benchmark must schedule everything. */
export class UnscheduledPodsError extends Error {}

function check(
  name: string,
  solver: string,
  results: SchedulingResults,
  pods: readonly Pod[],
): void {
  const scheduled =
    results.newNodeClaims.reduce((n, c) => n + c.pods.length, 0) +
    results.existingNodes.reduce((n, e) => n + e.pods.length, 0);
  if (results.podErrors.size > 0 || scheduled !== pods.length) {
    const [first] = results.podErrors.values();
    throw new UnscheduledPodsError(
      `${name} (${solver}): ${pods.length - scheduled} of ${pods.length} pods unscheduled; first error: ${first ?? 'none'}`,
    );
  }
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Measures one case with one solver. `budgetMs` bounds the timed phase (at least 3 iterations
 * for small cases, 1 for the largest).
 */
export async function measureCase(
  name: string,
  pods: readonly Pod[],
  solver: 'wasm' | 'ts',
  preferencePolicy: 'Respect' | 'Ignore',
  budgetMs: number,
  opts: { nodePool?: NodePool; onlyFirstSolve?: boolean } = {},
): Promise<SchedulingCaseResult> {
  const options = {
    nodePools: [opts.nodePool ?? benchmarkNodePool()],
    instanceTypes: new Map([['default', benchmarkInstanceTypes()]]),
    solver,
    preferencePolicy,
  };
  gc?.();
  const scheduler = new Scheduler(options);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let first: SchedulingResults | undefined = scheduler.solve(pods);
  const firstSolveSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const firstSolveCpuSeconds = (cpu.user + cpu.system) / 1e6;
  check(name, solver, first, pods);
  const peakHeapBytes = process.memoryUsage().heapTotal;
  const nodes = first.newNodeClaims.length;
  first = undefined; // let the timed solves reuse its memory
  if (opts.onlyFirstSolve === true) {
    return {
      name,
      solver,
      pods: pods.length,
      nodes,
      secondsPerSolve: firstSolveSeconds,
      podsPerSecond: pods.length / firstSolveSeconds,
      peakHeapBytes,
      firstSolveSeconds,
      firstSolveCpuSeconds,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      iterations: 1,
    };
  }

  const iterations = firstSolveSeconds > 2 ? 1 : firstSolveSeconds > 0.5 ? 3 : 5;
  const bench = new Bench({ iterations, time: budgetMs, warmupIterations: 1, warmupTime: 0 });
  let last: SchedulingResults | undefined;
  bench.add(`${name}/${solver}`, () => {
    last = scheduler.solve(pods);
  });
  await bench.run();
  if (last !== undefined) check(name, solver, last, pods);
  const task = bench.tasks[0];
  const result = task?.result as { latency?: { p50?: number }; totalTime?: number } | undefined;
  const medianMs = result?.latency?.p50;
  if (medianMs === undefined) throw new Error(`${name} (${solver}): tinybench produced no latency`);
  const secondsPerSolve = medianMs / 1000;
  return {
    name,
    solver,
    pods: pods.length,
    nodes,
    secondsPerSolve,
    podsPerSecond: pods.length / secondsPerSolve,
    peakHeapBytes,
    firstSolveSeconds,
    firstSolveCpuSeconds,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    iterations: (task?.runs as number | undefined) ?? iterations,
  };
}
