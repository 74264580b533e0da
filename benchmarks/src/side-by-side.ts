/**
 * What the benchmarks that measure this build against another (`--baseline <scheduling dist
 * index.js>`) share: reading their options, loading the other build's Scheduler, and writing
 * results/<file>.json with the ratios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The value after `--name` on the command line, if any. */
export function cliArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * The `Scheduler` class exported by the module at `path` (another build of
 * @karpenter-ts/scheduling). Throws Error naming the path when the module exports none.
 */
export async function baselineScheduler<T>(path: string): Promise<T> {
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { Scheduler?: unknown };
  if (typeof mod.Scheduler !== 'function')
    throw new Error(`--baseline ${path}: the module exports no Scheduler class`);
  return mod.Scheduler as T;
}

/**
 * The path of benchmarks/results/`fileName`, checked before a run so a bad `--out` fails at once.
 * Throws Error when `fileName` names a folder.
 */
export function resultsFile(fileName: string): string {
  if (basename(fileName) !== fileName) throw new Error(`--out takes a file name, got ${fileName}`);
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'results', fileName);
}

/** Writes `{date, node, baseline?, ratios?, cases}` as JSON to `file` (see {@link resultsFile}). */
export function writeSideBySide(
  file: string,
  baseline: string | undefined,
  ratios: Record<string, number>,
  cases: readonly unknown[],
): void {
  mkdirSync(dirname(file), { recursive: true });
  const data = {
    date: new Date().toISOString(),
    node: process.version,
    ...(baseline === undefined ? {} : { baseline, ratios }),
    cases,
  };
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}
