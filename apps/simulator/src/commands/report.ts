/**
 * `karpenter-ts-sim report <result.json...> [-o report.html]`: the HTML report of measures files
 * written earlier (`run --out`, or the shards of a sweep), their runs merged into one page.
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';
import { reportHtml } from '../report/html.js';
import { mergeOutputs, readOutput } from '../report/read-output.js';

/** Adds the `report` command to `program`. */
export function registerReport(program: Command, runtime: Runtime): void {
  program
    .command('report')
    .description(
      'write the self-contained HTML report of measures files (result.json), their runs on one page',
    )
    .argument('<results...>', 'result.json files of one scenario (from run --out or --json)')
    .option('-o, --output <file>', 'the HTML file to write', 'report.html')
    .action(async (files: string[], flags: { output: string }) => {
      const outputs = [];
      for (const file of files) outputs.push({ file, output: await readOutput(file) });
      const merged = mergeOutputs(outputs);
      await writeFile(flags.output, reportHtml(merged));
      runtime.io.err(
        `karpenter-ts-sim: wrote ${flags.output} (${merged.runs.length} run${merged.runs.length === 1 ? '' : 's'})\n`,
      );
    });
}
