/**
 * `karpenter-ts-sim run [scenario]`: runs a scenario (default: the shipped one) on each of its
 * clouds, prints a summary table, and writes the measures (`--out DIR`: result.json,
 * samples.csv, nodes.csv, events.csv and the HTML report report.html; `--report FILE`: the HTML
 * report there; `--json`: the JSON on stdout instead of the table).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '@karpenter-ts/cli';
import { prepareOutputFile, prepareOutputFolder } from './output-paths.js';
import { parseCloudArgument } from '../scenario/cloud-argument.js';
import { eventsCsv, nodesCsv, samplesCsv } from '../measures/csv.js';
import { reportHtml } from '../report/html.js';
import { summaryTable } from '../measures/summary-table.js';
import { outputJson, simulateScenario } from '../engine/simulate.js';
import type { Runtime } from '../runtime.js';
import { defaultScenarioPath } from '../scenario/default-scenario.js';
import { durationSeconds, formatSeconds } from '../scenario/durations.js';
import { loadScenario } from '../scenario/load.js';
import { AUTOSCALER_NAMES, type AutoscalerName, type Scenario } from '../scenario/types.js';

interface RunFlags {
  cloud?: string[];
  autoscaler?: string[];
  seed?: string;
  duration?: string;
  out?: string;
  report?: string;
  json?: boolean;
  solver: 'wasm' | 'ts';
  fastForward: boolean;
  workers: boolean;
  quiet?: boolean;
}

/** Adds the `run` command to `program`. */
export function registerRun(program: Command, runtime: Runtime): void {
  program
    .command('run')
    .description(
      'run a scenario on the real controllers over simulated time and report the measures',
    )
    .argument(
      '[scenario]',
      'scenario YAML file (default: the shipped day of Online Boutique and Sock Shop)',
      defaultScenarioPath(),
    )
    .option(
      '--cloud <clouds...>',
      "run on these clouds instead of the scenario's: cloud[:region] (azure, aws, sim), e.g. aws:us-west-2; put the scenario file before it",
    )
    .option(
      '--autoscaler <names...>',
      "run under these autoscalers instead of the scenario's: karpenter, cluster-autoscaler (the baseline)",
    )
    .option('--seed <n>', "seed instead of the scenario's (an integer 0..4294967295)")
    .option('--duration <duration>', 'run only this long (e.g. 6h): events after it are dropped')
    .option(
      '--out <dir>',
      'write result.json, samples.csv, nodes.csv, events.csv and report.html to this folder',
    )
    .option(
      '--report <file>',
      'write the self-contained HTML report to this file (with --out, default <dir>/report.html)',
    )
    .option('--json', 'print the JSON output on stdout instead of the summary table')
    .addOption(
      new Option('--solver <solver>', 'scheduling solver').choices(['wasm', 'ts']).default('wasm'),
    )
    .option(
      '--no-fast-forward',
      'tick every second while work is in flight and poll disruption every 10 s (slower)',
    )
    .option(
      '--no-workers',
      'run the clouds one after the other in this thread (default: a worker thread each, at once)',
    )
    .option('-q, --quiet', 'no progress lines on stderr')
    .action(async (file: string, flags: RunFlags) => {
      const loaded = await loadScenario(file, { seed: parseSeed(flags.seed) });
      const scenario = withOverrides(loaded, flags);
      if (scenario.durationSeconds < requestedSeconds(flags) && !flags.quiet)
        runtime.io.err(
          `karpenter-ts-sim: --duration ${flags.duration} is longer than the scenario's duration (${formatSeconds(loaded.durationSeconds)}): running ${formatSeconds(loaded.durationSeconds)}; raise the scenario's duration to run longer\n`,
        );
      const report =
        flags.report ?? (flags.out === undefined ? undefined : join(flags.out, 'report.html'));
      if (flags.out !== undefined) await prepareOutputFolder('--out', flags.out);
      if (flags.report !== undefined) await prepareOutputFile('--report', flags.report);
      const output = await simulateScenario(scenario, {
        clouds:
          flags.cloud === undefined
            ? scenario.clouds
            : flags.cloud.map((c) => parseCloudArgument(c, scenario, '--cloud')),
        autoscalers:
          flags.autoscaler === undefined
            ? scenario.autoscalers
            : parseAutoscalers(flags.autoscaler),
        solver: flags.solver,
        fastForward: flags.fastForward,
        workers: flags.workers,
        onRunDone: (run, wallMs) => {
          if (flags.quiet) return;
          runtime.io.err(
            `karpenter-ts-sim: ${run.id}: ${formatSeconds(scenario.durationSeconds)} simulated in ${(wallMs / 1000).toFixed(1)} s (${run.summary.ticks} ticks)\n`,
          );
          for (const note of run.notes) runtime.io.err(`  note: ${note}\n`);
        },
      });
      const written: string[] = [];
      if (flags.out !== undefined) {
        await writeFile(join(flags.out, 'result.json'), outputJson(output));
        await writeFile(join(flags.out, 'samples.csv'), samplesCsv(output));
        await writeFile(join(flags.out, 'nodes.csv'), nodesCsv(output));
        await writeFile(join(flags.out, 'events.csv'), eventsCsv(output));
        written.push(`${join(flags.out, 'result.json')}, samples.csv, nodes.csv, events.csv`);
      }
      if (report !== undefined) {
        await writeFile(report, reportHtml(output));
        written.push(report);
      }
      if (written.length > 0 && !flags.quiet)
        runtime.io.err(`karpenter-ts-sim: wrote ${written.join(', ')}\n`);
      runtime.io.out(flags.json ? outputJson(output) : summaryTable(output));
    });
}

/** The `--seed` value (undefined: the scenario's). Raises UsageError unless an integer 0..4294967295. */
function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seed = Number(text);
  if (!/^\d+$/.test(text) || seed > 4294967295)
    throw new UsageError(`--seed: expected an integer 0..4294967295, got ${JSON.stringify(text)}`);
  return seed;
}

/** Seconds `--duration` asks for (0 when absent). Raises UsageError for a malformed duration. */
function requestedSeconds(flags: RunFlags): number {
  if (flags.duration === undefined) return 0;
  const seconds = /^(\d+(\.\d+)?(d|h|ms|m|s))+$|^\d+$/.test(flags.duration)
    ? durationSeconds(/^\d+$/.test(flags.duration) ? Number(flags.duration) : flags.duration)
    : Number.NaN;
  if (!(seconds > 0))
    throw new UsageError(
      `--duration: expected a duration such as 6h or 90m, got ${JSON.stringify(flags.duration)}`,
    );
  return seconds;
}

/** The scenario cut to `--duration` (never lengthened: events are placed within its duration). */
function withOverrides(scenario: Scenario, flags: RunFlags): Scenario {
  if (flags.duration === undefined) return scenario;
  return {
    ...scenario,
    durationSeconds: Math.min(requestedSeconds(flags), scenario.durationSeconds),
  };
}

/** The `--autoscaler` values. */
function parseAutoscalers(values: readonly string[]): AutoscalerName[] {
  for (const v of values)
    if (!AUTOSCALER_NAMES.includes(v as AutoscalerName))
      throw new UsageError(
        `--autoscaler: expected ${AUTOSCALER_NAMES.join(' or ')}, got ${JSON.stringify(v)}`,
      );
  return [...new Set(values as AutoscalerName[])];
}
