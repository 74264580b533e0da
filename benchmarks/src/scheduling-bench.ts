/**
 * The scheduling benchmark: one `Scheduler.solve` per iteration over the reference workload,
 * with the WASM solver and with the TypeScript solver, measured with tinybench.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import { Scheduler, type SchedulerOptions, type SchedulingResults } from '@karpenter-ts/scheduling';
import { Bench } from 'tinybench';
import { benchmarkInstanceTypes, benchmarkNodePool } from './scheduling-workload.js';

/**
 * A Scheduler class: this build's, or a baseline build loaded with `--baseline` (another
 * commit's packages/scheduling/dist) to compare side by side in one process.
 */
export type SchedulerClass = new (options: SchedulerOptions) => {
  solve(pods: readonly Pod[]): SchedulingResults;
};

/** One measured case, as written to results/scheduling.json. */
export interface SchedulingCaseResult {
  name: string;
  solver: 'wasm' | 'ts';
  /** `current` (this build) or `baseline` (the `--baseline` build). */
  build: 'current' | 'baseline';
  pods: number;
  /** New node claims of one solve. */
  nodes: number;
  /** Pods one solve leaves pending (0 except in the pending-heavy cases). */
  pendingPods: number;
  /** Median seconds per solve. */
  secondsPerSolve: number;
  /**
   * Mean CPU seconds of the process per timed solve (GC helper threads included): steadier than
   * wall time when other processes hold the cores. The first solve's for `onlyFirstSolve` cases.
   */
  cpuSecondsPerSolve: number;
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

/**
 * Thrown when a solve leaves a pod unscheduled in a case that must schedule everything, or
 * leaves a pod neither placed nor with an error.
 */
export class UnscheduledPodsError extends Error {}

/** Checks a solve's results and returns the number of pending pods. */
function check(
  name: string,
  solver: string,
  results: SchedulingResults,
  pods: readonly Pod[],
  allowPending: boolean,
): number {
  const scheduled =
    results.newNodeClaims.reduce((n, c) => n + c.pods.length, 0) +
    results.existingNodes.reduce((n, e) => n + e.pods.length, 0);
  const pending = results.podErrors.size;
  if ((!allowPending && pending > 0) || scheduled + pending !== pods.length) {
    const [first] = results.podErrors.values();
    throw new UnscheduledPodsError(
      `${name} (${solver}): ${pods.length - scheduled} of ${pods.length} pods unscheduled, ${pending} with an error; first error: ${first ?? 'none'}`,
    );
  }
  return pending;
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
  opts: {
    nodePool?: NodePool;
    onlyFirstSolve?: boolean;
    /** The case leaves pods pending on purpose (a limited NodePool). */
    allowPending?: boolean;
    /** The Scheduler to measure (default: this build's) and its label. */
    scheduler?: SchedulerClass;
    build?: 'current' | 'baseline';
  } = {},
): Promise<SchedulingCaseResult> {
  const options = {
    nodePools: [opts.nodePool ?? benchmarkNodePool()],
    instanceTypes: new Map([['default', benchmarkInstanceTypes()]]),
    solver,
    preferencePolicy,
  };
  const allowPending = opts.allowPending === true;
  const build = opts.build ?? 'current';
  const SchedulerBuild: SchedulerClass = opts.scheduler ?? Scheduler;
  gc?.();
  const scheduler = new SchedulerBuild(options);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let first: SchedulingResults | undefined = scheduler.solve(pods);
  const firstSolveSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const firstSolveCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const pendingPods = check(name, solver, first, pods, allowPending);
  const peakHeapBytes = process.memoryUsage().heapTotal;
  const nodes = first.newNodeClaims.length;
  first = undefined; // let the timed solves reuse its memory
  if (opts.onlyFirstSolve === true) {
    return {
      name,
      solver,
      build,
      pods: pods.length,
      nodes,
      pendingPods,
      secondsPerSolve: firstSolveSeconds,
      cpuSecondsPerSolve: firstSolveCpuSeconds,
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
  const benchCpu0 = process.cpuUsage();
  await bench.run();
  const benchCpu = process.cpuUsage(benchCpu0);
  if (last !== undefined) check(name, solver, last, pods, allowPending);
  const task = bench.tasks[0];
  const result = task?.result as { latency?: { p50?: number }; totalTime?: number } | undefined;
  const medianMs = result?.latency?.p50;
  if (medianMs === undefined) throw new Error(`${name} (${solver}): tinybench produced no latency`);
  const secondsPerSolve = medianMs / 1000;
  const runs = (task?.runs as number | undefined) ?? iterations;
  return {
    name,
    solver,
    build,
    pods: pods.length,
    nodes,
    pendingPods,
    secondsPerSolve,
    // tinybench's own warm-up solve runs inside `bench.run()` too
    cpuSecondsPerSolve: (benchCpu.user + benchCpu.system) / 1e6 / (runs + 1),
    podsPerSecond: pods.length / secondsPerSolve,
    peakHeapBytes,
    firstSolveSeconds,
    firstSolveCpuSeconds,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    iterations: runs,
  };
}
