/**
 * Runs a scenario on each of its clouds under each of its autoscalers and gathers the runs into
 * the output format. With `workers`, each run has a worker thread of its own (the runs share
 * nothing, so they use every core); the output is the same either way, in the order of the
 * clouds, then of the autoscalers.
 */
import { Worker } from 'node:worker_threads';
import { OUTPUT_FORMAT, type RunOutput, type SimulationOutput } from '../measures/format.js';
import type { AutoscalerName, CloudRun, Scenario } from '../scenario/types.js';
import { autoscalerFactory } from './autoscalers.js';
import { runScenario, type RunOptions } from './run.js';
import type { RunWorkerData } from './run-worker.js';

/** Options of {@link simulateScenario}: those of a run, and the clouds (default: the scenario's). */
export interface SimulateOptions extends RunOptions {
  readonly clouds?: readonly CloudRun[];
  /** The autoscalers (default: the scenario's); ignored when `autoscaler` gives a factory. */
  readonly autoscalers?: readonly AutoscalerName[];
  /**
   * Run each cloud in a worker thread, at the same time (default false). Needs the compiled
   * package (the worker is `dist/engine/run-worker.js`) and the default autoscaler.
   */
  readonly workers?: boolean;
  /** Called when a run finishes (with its wall-clock milliseconds, which the output leaves out). */
  readonly onRunDone?: (run: RunOutput, wallMs: number) => void;
}

/** Every run of the scenario, as one output. */
export async function simulateScenario(
  scenario: Scenario,
  options: SimulateOptions = {},
): Promise<SimulationOutput> {
  const clouds = options.clouds ?? scenario.clouds;
  const names = options.autoscalers ?? scenario.autoscalers;
  const cases = clouds.flatMap((cloud) => names.map((autoscaler) => ({ cloud, autoscaler })));
  const runs: RunOutput[] = [];
  if (options.workers === true && cases.length > 1 && options.autoscaler === undefined) {
    const done = await Promise.all(
      cases.map((c) => runInWorker(scenario, c.cloud, c.autoscaler, options)),
    );
    for (const { run, wallMs } of done) {
      options.onRunDone?.(run, wallMs);
      runs.push(run);
    }
  } else if (options.autoscaler !== undefined) {
    for (const cloud of clouds) {
      const started = performance.now();
      const run = await runScenario(scenario, cloud, options);
      options.onRunDone?.(run, performance.now() - started);
      runs.push(run);
    }
  } else {
    for (const c of cases) {
      const started = performance.now();
      const run = await runScenario(scenario, c.cloud, {
        ...options,
        autoscaler: autoscalerFactory(c.autoscaler, scenario),
      });
      options.onRunDone?.(run, performance.now() - started);
      runs.push(run);
    }
  }
  return {
    format: OUTPUT_FORMAT,
    scenario: {
      name: scenario.name,
      file: scenario.file,
      seed: scenario.seed,
      start: new Date(scenario.startMs).toISOString(),
      durationSeconds: scenario.durationSeconds,
      sampleSeconds: scenario.sampleSeconds,
    },
    runs,
  };
}

/** The output as the JSON file holds it (two-space indent, a final newline). */
export function outputJson(output: SimulationOutput): string {
  return `${JSON.stringify(output, null, 2)}\n`;
}

/**
 * One run in a worker thread (the compiled `dist/engine/run-worker.js`). Raises Error with the
 * worker's stack when the run failed.
 */
export function runInWorker(
  scenario: Scenario,
  cloud: CloudRun,
  autoscaler: AutoscalerName,
  options: RunOptions,
): Promise<{ run: RunOutput; wallMs: number }> {
  const workerData: RunWorkerData = {
    scenario,
    cloud,
    autoscaler,
    options: {
      ...(options.solver !== undefined ? { solver: options.solver } : {}),
      ...(options.fastForward !== undefined ? { fastForward: options.fastForward } : {}),
    },
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./run-worker.js', import.meta.url), { workerData });
    worker.once('message', (message: { run: RunOutput; wallMs: number } | { error: string }) => {
      if ('error' in message)
        reject(new Error(`run of ${autoscaler} on ${cloud.cloud} failed: ${message.error}`));
      else resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
