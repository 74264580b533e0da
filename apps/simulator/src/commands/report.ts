/**
 * `karpenter-ts-sim report <result.json|folder...> [-o report.html]`: the HTML report of
 * measures files written earlier (`run --out`, or the shards of a sweep: a folder stands for the
 * `.json` files in it), their runs merged into one page.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
    .argument(
      '<results...>',
      'result.json files of one scenario (from run --out or --json), or folders of them (a sweep scenario folder: every .json in it)',
    )
    .option('-o, --output <file>', 'the HTML file to write', 'report.html')
    .action(async (files: string[], flags: { output: string }) => {
      const outputs = [];
      for (const file of await expandFolders(files))
        outputs.push({ file, output: await readOutput(file) });
      const merged = mergeOutputs(outputs);
      await writeFile(flags.output, reportHtml(merged));
      runtime.io.err(
        `karpenter-ts-sim: wrote ${flags.output} (${merged.runs.length} run${merged.runs.length === 1 ? '' : 's'})\n`,
      );
    });
}

/** The files, a folder standing for the `.json` files directly in it (sorted by name). */
async function expandFolders(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const isDir = await stat(p).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) {
      out.push(p);
      continue;
    }
    const names = (await readdir(p)).filter((n) => n.endsWith('.json')).sort();
    out.push(...names.map((n) => join(p, n)));
  }
  return out;
}
