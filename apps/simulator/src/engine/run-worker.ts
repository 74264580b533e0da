/**
 * A worker thread that runs one scenario on one cloud (see `simulateScenario`'s `workers`): it
 * gets the scenario, the cloud and the run options as `workerData` and posts back
 * `{run, wallMs}` or `{error}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CloudRun, Scenario } from '../scenario/types.js';
import { runScenario, type RunOptions } from './run.js';

/** What the parent sends. */
export interface RunWorkerData {
  readonly scenario: Scenario;
  readonly cloud: CloudRun;
  readonly options: Pick<RunOptions, 'solver' | 'fastForward'>;
}

const data = workerData as RunWorkerData;
const started = performance.now();
try {
  const run = await runScenario(data.scenario, data.cloud, data.options);
  parentPort?.postMessage({ run, wallMs: performance.now() - started });
} catch (error) {
  parentPort?.postMessage({
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}
