/**
 * Runs sweep cases, at most `workers` at once, each in a worker thread of its own (or one after
 * the other in this thread), and writes each run as a measures file of its scenario:
 * `<out>/<scenario>/<variant>--<autoscaler>--<cloud>--<region>.json` (format
 * `karpenter-ts-sim/v1`, one run), so shards that ran anywhere merge by copying their folders
 * together; `karpenter-ts-sim report <out>/<scenario>` draws them on one page.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OUTPUT_FORMAT, type RunOutput, type SimulationOutput } from '../measures/format.js';
import { autoscalerFactory } from '../engine/autoscalers.js';
import { runScenario, type RunOptions } from '../engine/run.js';
import { outputJson, runInWorker } from '../engine/simulate.js';
import type { SweepCase } from './cases.js';

/** Options of {@link runSweep}. */
export interface SweepRunOptions extends Pick<RunOptions, 'solver' | 'fastForward'> {
  /** Runs at once; 0: one after the other in this thread (no worker). */
  readonly workers: number;
  /** Whether the sweep has more than one variant (run ids then start with the variant). */
  readonly variantIds: boolean;
  readonly onCaseDone?: (c: SweepCase, run: RunOutput, wallMs: number, file: string) => void;
}

/** The measures file of a case, relative to the output folder. */
export function caseFile(c: SweepCase): string {
  const region = c.cloud.region ?? 'default';
  return join(
    safe(c.scenario.name),
    `${safe(c.variant)}--${c.autoscaler}--${c.cloud.cloud}--${safe(region)}.json`,
  );
}

/** Runs `cases` and writes their files under `out`; resolves with the files written, in case order. */
export async function runSweep(
  cases: readonly SweepCase[],
  out: string,
  o: SweepRunOptions,
): Promise<string[]> {
  const files: string[] = new Array<string>(cases.length);
  let next = 0;
  const one = async () => {
    while (next < cases.length) {
      const k = next++;
      const c = cases[k]!;
      const started = performance.now();
      const run =
        o.workers > 0
          ? (await runInWorker(c.scenario, c.cloud, c.autoscaler, o)).run
          : await runScenario(c.scenario, c.cloud, {
              ...o,
              autoscaler: autoscalerFactory(c.autoscaler, c.scenario),
            });
      const tagged: RunOutput = o.variantIds
        ? { ...run, id: `${c.variant}/${run.id}`, variant: c.variant }
        : { ...run, variant: c.variant };
      const file = join(out, caseFile(c));
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(file, outputJson(outputOf(c, tagged)));
      files[k] = file;
      o.onCaseDone?.(c, tagged, performance.now() - started, file);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.workers, cases.length)) }, one));
  return files;
}

function outputOf(c: SweepCase, run: RunOutput): SimulationOutput {
  const s = c.scenario;
  return {
    format: OUTPUT_FORMAT,
    scenario: {
      name: s.name,
      file: s.file,
      seed: s.seed,
      start: new Date(s.startMs).toISOString(),
      durationSeconds: s.durationSeconds,
      sampleSeconds: s.sampleSeconds,
    },
    runs: [run],
  };
}

/** A file name part: letters, digits, dots, dashes. */
function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9.-]+/g, '-');
}
