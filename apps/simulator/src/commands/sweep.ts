/**
 * `karpenter-ts-sim sweep <sweep.yaml> --out DIR`: runs a sweep's cases (scenarios × NodePool
 * variants × clouds × autoscalers) in worker threads, or one shard of them (`--shard i/n`, or an
 * Indexed Job's JOB_COMPLETION_INDEX with `--shards n`), writing one measures file per case under
 * DIR/<scenario>/; the whole sweep also writes DIR/report.html, every case on one page grouped by
 * scenario. Shards' folders merge by copying them together, then `karpenter-ts-sim report DIR`.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { UsageError } from '@karpenter-ts/cli';
import type { Runtime } from '../runtime.js';
import { reportHtml } from '../report/html.js';
import { prepareOutputFolder } from './output-paths.js';
import { groupOutputs, readOutput } from '../report/read-output.js';
import { formatSeconds } from '../scenario/durations.js';
import { parseShard, shardCases, sweepCases } from '../sweep/cases.js';
import { loadSweep } from '../sweep/load.js';
import { caseFile, runSweep } from '../sweep/run-sweep.js';

interface SweepFlags {
  out: string;
  shard?: string;
  shards?: string;
  workers?: string;
  solver: 'wasm' | 'ts';
  fastForward: boolean;
  quiet?: boolean;
}

/** Adds the `sweep` command to `program`; `env` is where JOB_COMPLETION_INDEX is read. */
export function registerSweep(
  program: Command,
  runtime: Runtime,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  program
    .command('sweep')
    .description(
      'run a sweep (scenarios x NodePool variants x clouds x autoscalers) in worker threads, or one shard of it',
    )
    .argument('<sweep>', 'sweep YAML file (kind: Sweep)')
    .requiredOption('--out <dir>', 'folder for the measures files (DIR/<scenario>/<case>.json)')
    .option('--shard <i/n>', 'run only shard i of n (1-based)')
    .option(
      '--shards <n>',
      'run the shard JOB_COMPLETION_INDEX (0-based, set by a Kubernetes Indexed Job) of n',
    )
    .option(
      '--workers <n>',
      'runs at once, each in a worker thread; 0: one after the other here (default: the cores)',
    )
    .addOption(
      new Option('--solver <solver>', 'scheduling solver').choices(['wasm', 'ts']).default('wasm'),
    )
    .option('--no-fast-forward', 'tick every second while work is in flight (slower)')
    .option('-q, --quiet', 'no progress lines on stderr')
    .action(async (file: string, flags: SweepFlags) => {
      const shard = parseShard(flags.shard, flags.shards, env);
      const workers = flags.workers === undefined ? availableParallelism() : Number(flags.workers);
      if (!Number.isInteger(workers) || workers < 0)
        throw new UsageError(
          `--workers: expected a count of 0 or more, got ${JSON.stringify(flags.workers)}`,
        );
      const sweep = await loadSweep(file);
      const all = sweepCases(sweep);
      const cases = shardCases(all, shard);
      if (!flags.quiet)
        runtime.io.err(
          `karpenter-ts-sim: sweep ${sweep.name}: ${cases.length} of ${all.length} case(s)${shard === undefined ? '' : ` (shard ${shard.index + 1}/${shard.count})`}, ${workers === 0 ? 'in this thread' : `${Math.min(workers, cases.length)} at once`}\n`,
        );
      await prepareOutputFolder('--out', flags.out);
      await runSweep(cases, flags.out, {
        workers,
        solver: flags.solver,
        fastForward: flags.fastForward,
        variantIds: sweep.variants.length > 1,
        onCaseDone: (c, run, wallMs, written) => {
          if (flags.quiet) return;
          runtime.io.err(
            `karpenter-ts-sim: [${c.index + 1}/${all.length}] ${c.scenario.name} ${run.id}: ${formatSeconds(c.scenario.durationSeconds)} in ${(wallMs / 1000).toFixed(1)} s -> ${written}\n`,
          );
        },
      });
      if (shard === undefined) {
        const outputs = [];
        for (const c of all) {
          const f = join(flags.out, caseFile(c));
          outputs.push({ file: f, output: await readOutput(f) });
        }
        const report = join(flags.out, 'report.html');
        await writeFile(report, reportHtml(groupOutputs(outputs), `sweep ${sweep.name}`));
        if (!flags.quiet) runtime.io.err(`karpenter-ts-sim: wrote ${report}\n`);
      } else if (!flags.quiet) {
        runtime.io.err(
          `karpenter-ts-sim: shard done; once every shard's ${flags.out} is gathered in one folder: karpenter-ts-sim report ${flags.out} -o ${join(flags.out, 'report.html')}\n`,
        );
      }
    });
}
