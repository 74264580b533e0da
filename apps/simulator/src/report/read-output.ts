/**
 * Reads measures files (`result.json`, format `karpenter-ts-sim/v1`) for the report, merges
 * several of one scenario (runs written apart, e.g. the shards of a sweep) into one output, and
 * groups the files of several scenarios (a sweep) into one output per scenario.
 */
import { readFile } from 'node:fs/promises';
import { CliError } from '@karpenter-ts/cli';
import { OUTPUT_FORMAT, type SimulationOutput } from '../measures/format.js';

/**
 * Reads one measures file. Raises CliError naming the file when it cannot be read, is not JSON,
 * or is not of format `karpenter-ts-sim/v1` (with `runs` an array).
 */
export async function readOutput(file: string): Promise<SimulationOutput> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`${file}: cannot read: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file}: not JSON: ${(error as Error).message}`);
  }
  const o = value as Partial<SimulationOutput> | null;
  if (o === null || typeof o !== 'object' || o.format !== OUTPUT_FORMAT)
    throw new CliError(
      `${file} format: expected "${OUTPUT_FORMAT}" (a karpenter-ts-sim result.json), got ${JSON.stringify(o?.format ?? null)}`,
    );
  if (!Array.isArray(o.runs) || typeof o.scenario !== 'object')
    throw new CliError(`${file} runs: expected an array of runs and a scenario object`);
  return o as SimulationOutput;
}

/**
 * One output holding every run of `outputs`, in order. Raises CliError when they are not of one
 * scenario (name, start, duration and sample interval must agree, or the charts would not share
 * a time axis) or when two hold a run with the same id.
 */
export function mergeOutputs(
  outputs: readonly { readonly file: string; readonly output: SimulationOutput }[],
): SimulationOutput {
  const first = outputs[0];
  if (first === undefined) throw new CliError('no measures file to report');
  const s = first.output.scenario;
  const seen = new Map<string, string>();
  for (const { file, output } of outputs) {
    const o = output.scenario;
    for (const field of ['name', 'start', 'durationSeconds', 'sampleSeconds'] as const)
      if (o[field] !== s[field])
        throw new CliError(
          `${file} scenario.${field}: ${JSON.stringify(o[field])} differs from ${JSON.stringify(s[field])} in ${first.file} (runs of one scenario share its time axis)`,
        );
    for (const run of output.runs) {
      const other = seen.get(run.id);
      if (other !== undefined)
        throw new CliError(`${file} runs: run ${run.id} is also in ${other}`);
      seen.set(run.id, file);
    }
  }
  return { ...first.output, runs: outputs.flatMap(({ output }) => output.runs) };
}

/**
 * The files' runs grouped by scenario name, one merged output per scenario in the order the
 * scenarios first appear (a sweep of several scenarios: one report section each). Raises
 * CliError as {@link mergeOutputs} does within a scenario (same name, another start, duration
 * or sample interval; a run id twice).
 */
export function groupOutputs(
  outputs: readonly { readonly file: string; readonly output: SimulationOutput }[],
): SimulationOutput[] {
  if (outputs.length === 0) throw new CliError('no measures file to report');
  const byName = new Map<string, { file: string; output: SimulationOutput }[]>();
  for (const o of outputs) {
    const list = byName.get(o.output.scenario.name) ?? [];
    list.push(o);
    byName.set(o.output.scenario.name, list);
  }
  return [...byName.values()].map(mergeOutputs);
}
