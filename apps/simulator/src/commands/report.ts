/**
 * `karpenter-ts-sim report <result.json|folder...> [-o report.html]`: the HTML report of
 * measures files written earlier (`run --out`, or the shards of a sweep: a folder stands for the
 * `.json` files in it and its subfolders), their runs on one page, grouped by scenario.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';
import { reportHtml } from '../report/html.js';
import { prepareOutputFile } from './output-paths.js';
import { groupOutputs, readOutput } from '../report/read-output.js';

/** Adds the `report` command to `program`. */
export function registerReport(program: Command, runtime: Runtime): void {
  program
    .command('report')
    .description(
      'write the self-contained HTML report of measures files (result.json), their runs on one page',
    )
    .argument(
      '<results...>',
      'result.json files (from run --out or --json), or folders of them (a sweep output folder: every .json in it and its subfolders); several scenarios make one section each',
    )
    .option('-o, --output <file>', 'the HTML file to write', 'report.html')
    .action(async (files: string[], flags: { output: string }) => {
      await prepareOutputFile('-o', flags.output);
      const outputs = [];
      for (const file of await expandFolders(files))
        outputs.push({ file, output: await readOutput(file) });
      const groups = groupOutputs(outputs);
      await writeFile(flags.output, reportHtml(groups));
      const runs = groups.reduce((n, g) => n + g.runs.length, 0);
      runtime.io.err(
        `karpenter-ts-sim: wrote ${flags.output} (${runs} run${runs === 1 ? '' : 's'}${groups.length > 1 ? ` of ${groups.length} scenarios` : ''})\n`,
      );
    });
}

/**
 * The files, a folder standing for the `.json` files in it and its subfolders (a sweep's output:
 * one folder per scenario), sorted by path within the folder.
 */
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
    const entries = await readdir(p, { recursive: true, withFileTypes: true });
    out.push(
      ...entries
        .filter((e) => e.isFile() && e.name.endsWith('.json'))
        .map((e) => join(e.parentPath, e.name))
        .sort(),
    );
  }
  return out;
}
