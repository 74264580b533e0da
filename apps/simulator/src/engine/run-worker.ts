/**
 * A worker thread that runs one scenario on one cloud (see `simulateScenario`'s `workers`): it
 * gets the scenario, the cloud, the autoscaler's name and the run options as `workerData` and posts back
 * `{run, wallMs}` or `{error}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AutoscalerName, CloudRun, Scenario } from '../scenario/types.js';
import { autoscalerFactory } from './autoscalers.js';
import { runScenario, type RunOptions } from './run.js';

/** What the parent sends. */
export interface RunWorkerData {
  readonly scenario: Scenario;
  readonly cloud: CloudRun;
  readonly autoscaler: AutoscalerName;
  readonly options: Pick<RunOptions, 'solver' | 'fastForward'>;
}

const data = workerData as RunWorkerData;
const started = performance.now();
try {
  const run = await runScenario(data.scenario, data.cloud, {
    ...data.options,
    autoscaler: autoscalerFactory(data.autoscaler, data.scenario),
  });
  parentPort?.postMessage({ run, wallMs: performance.now() - started });
} catch (error) {
  parentPort?.postMessage({
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}
