/**
 * The simulator benchmark: a scenario run on each of its clouds (one after the other in this
 * thread, so the figures are per run), timed with tinybench (one iteration: a day takes tens of
 * seconds), with simulated seconds per wall second, CPU seconds, ticks, the pod peak and memory.
 */
import { loadavg } from 'node:os';
import { Bench } from 'tinybench';
import {
  autoscalerFactory,
  loadScenario,
  runScenario,
  type RunOutput,
} from '@karpenter-ts/simulator';

/** One run's figures. */
export interface SimulatorRunResult {
  readonly case: string;
  /** `autoscaler/cloud/region`. */
  readonly run: string;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  /** Process CPU during the run (all threads, GC helpers included): steadier than wall time on a shared machine. */
  readonly cpuSeconds: number;
  /** simulatedSeconds / wallSeconds. */
  readonly simulatedSecondsPerWallSecond: number;
  readonly ticks: number;
  /** Most pods (running + pending) at any sample. */
  readonly peakPods: number;
  readonly nodesPeak: number;
  readonly usdSpent: number;
  /** Largest V8 heap used seen between iterations of the run, bytes. */
  readonly peakHeapUsedBytes: number;
  /** The process's peak resident set so far (earlier runs included), bytes. */
  readonly maxRssBytes: number;
  /** The machine's 1-minute load average when the run started and when it ended (a shared machine). */
  readonly loadAverage: readonly [number, number];
}

/**
 * Runs every cloud of the scenario at `file` under each of its autoscalers (Karpenter, the
 * Cluster Autoscaler model) and returns one result per run.
 */
export async function measureScenario(name: string, file: string): Promise<SimulatorRunResult[]> {
  const scenario = await loadScenario(file);
  const out: SimulatorRunResult[] = [];
  for (const cloud of scenario.clouds)
    for (const autoscaler of scenario.autoscalers) {
      let run: RunOutput | undefined;
      let peakHeap = 0;
      let cpu = 0;
      const loadBefore = round(loadavg()[0] ?? 0);
      const bench = new Bench({ iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 });
      bench.add(`${name}/${cloud.cloud}/${autoscaler}`, async () => {
        const before = process.cpuUsage();
        run = await runScenario(scenario, cloud, {
          autoscaler: autoscalerFactory(autoscaler, scenario),
          onProgress: () => {
            const used = process.memoryUsage().heapUsed;
            if (used > peakHeap) peakHeap = used;
          },
        });
        const used = process.cpuUsage(before);
        cpu = (used.user + used.system) / 1e6;
      });
      await bench.run();
      const ms = (bench.tasks[0]?.result as { latency?: { p50?: number } } | undefined)?.latency
        ?.p50;
      if (ms === undefined || run === undefined)
        throw new Error(`${name}: tinybench produced no latency`);
      const wallSeconds = ms / 1000;
      out.push({
        case: name,
        run: run.id,
        simulatedSeconds: scenario.durationSeconds,
        wallSeconds: round(wallSeconds),
        cpuSeconds: round(cpu),
        simulatedSecondsPerWallSecond: Math.round(scenario.durationSeconds / wallSeconds),
        ticks: run.summary.ticks,
        peakPods: Math.max(0, ...run.samples.map((s) => s.runningPods + s.pendingPods)),
        nodesPeak: run.summary.nodes.peak,
        usdSpent: run.summary.usdSpent,
        peakHeapUsedBytes: peakHeap,
        maxRssBytes: process.resourceUsage().maxRSS * 1024,
        loadAverage: [loadBefore, round(loadavg()[0] ?? 0)],
      });
    }
  return out;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
