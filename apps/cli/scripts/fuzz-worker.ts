/**
 * The fuzz script's worker thread: runs support/fuzz-check.ts on each file the main thread
 * posts and posts back the findings. It lives in a worker so the main thread can end a run
 * past its time bound and see a heap past the worker's limit as ERR_WORKER_OUT_OF_MEMORY.
 */
import { parentPort } from 'node:worker_threads';
import { checkInput, DEFAULT_FUZZ_BOUNDS } from '../test/support/fuzz-check.js';
import { FUZZ_FAMILIES } from '../test/support/fuzz-families.js';

/** What the main thread posts: the file to read and the family whose commands read it. */
export interface FuzzJob {
  readonly file: string;
  readonly family: string;
}

parentPort?.on('message', (job: FuzzJob) => {
  const family = FUZZ_FAMILIES.find((f) => f.name === job.family)!;
  void checkInput(job.file, family, DEFAULT_FUZZ_BOUNDS).then(
    (findings) => parentPort?.postMessage({ findings }),
    (error: unknown) =>
      parentPort?.postMessage({
        findings: [{ run: 'fuzz worker', problem: 'threw', output: String(error) }],
      }),
  );
});
