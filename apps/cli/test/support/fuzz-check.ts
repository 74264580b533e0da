/**
 * What the CLI must do with any input file, checked for one fuzz input: `validate` and each of
 * its family's commands (run in this process) end in exit 0 or 1; exit 1 says why in
 * `karpenter-ts: error: file:line ...` lines (or, for a command, a reason about the run itself,
 * such as nothing to schedule); never an internal error, a stack trace, a pod the scheduler
 * could not read, a run past the time bound or a heap past the memory bound; and `simulate`
 * never stops on a problem in an input `validate` accepted (issue 17's rule), unless `validate`
 * printed that problem as a warning (a snapshot reference problem: see {@link warnedOf}).
 */
import { performance } from 'node:perf_hooks';
import { cli, type CliResult } from './cli.js';
import { threadCpuMs } from './thread-cpu.js';
import type { FuzzFamily } from './fuzz-families.js';

/** One broken rule: which run, what went wrong, and the output that shows it (cut to 2,000 chars). */
export interface FuzzFinding {
  readonly run: string;
  readonly problem: string;
  readonly output: string;
}

/** Bounds of {@link checkInput}. */
export interface FuzzBounds {
  /**
   * Most CPU time a single command may take, in ms (the thread's CPU time where the platform
   * gives it, see thread-cpu.ts, else wall time; it runs in process, so it is measured, not
   * cut: the fuzz script ends a run that never answers).
   */
  readonly commandMs: number;
  /** Largest V8 heap in use after a command, in bytes. */
  readonly heapBytes: number;
}

/**
 * 120 s of CPU a command and 1.5 GiB of heap: far above what even a file of thousands of
 * documents needs (a few hundred MiB, under a minute of CPU; on a 2-core machine shared with a
 * dozen busy processes the same command took up to 135 s of wall time, hence CPU time).
 */
export const DEFAULT_FUZZ_BOUNDS: FuzzBounds = { commandMs: 120_000, heapBytes: 1.5 * 2 ** 30 };

/**
 * Reasons a command may stop on that are about the run, not a line of the input: nothing left
 * to schedule, or no pod of that name for `explain`, or a simulation over the pod limit, or an
 * `explain --pod` argument that names no pending pod or workload of the input (or several): the
 * error is about the argument, and names what the input holds.
 */
const RUN_REASONS = [
  /^nothing to schedule:/,
  /^a simulation holds/,
  /^no pod /,
  /^explain: /,
  /^--pod: /,
];

const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs `validate` and `family.commands` on `file` and returns every rule they broke. */
export async function checkInput(
  file: string,
  family: FuzzFamily,
  bounds: FuzzBounds = DEFAULT_FUZZ_BOUNDS,
): Promise<FuzzFinding[]> {
  const findings: FuzzFinding[] = [];
  // A problem on a line, or one about the whole file (an empty one).
  const at = new RegExp(`^${escape(file)}:\\d+(:\\d+)? \\S|^no objects found in ${escape(file)}$`);
  const runs: (readonly string[])[] = [['validate'], ...family.commands];
  let validated: CliResult | undefined;
  for (const [command, ...args] of runs) {
    const argv = [command!, file, ...args];
    const run = argv.join(' ');
    const found = (problem: string, result: CliResult) =>
      findings.push({
        run,
        problem,
        output: `exit ${result.code}\n${result.stderr}\n${result.stdout}`.slice(0, 2000),
      });
    const start = performance.now();
    const cpuStart = threadCpuMs();
    let result: CliResult;
    try {
      result = await cli(...argv);
    } catch (error) {
      const e = error as Error;
      findings.push({ run, problem: 'the CLI threw', output: `${e.stack ?? e}`.slice(0, 2000) });
      continue;
    }
    const cpuEnd = threadCpuMs();
    const ms =
      cpuStart === undefined || cpuEnd === undefined
        ? performance.now() - start
        : cpuEnd - cpuStart;
    if (ms > bounds.commandMs)
      found(
        `took ${Math.round(ms)} ms${cpuEnd === undefined ? '' : ' of CPU'} (bound ${bounds.commandMs} ms)`,
        result,
      );
    const heap = process.memoryUsage().heapUsed;
    if (heap > bounds.heapBytes)
      found(`heap at ${Math.round(heap / 2 ** 20)} MiB after the run`, result);
    if (result.stderr.includes('internal error')) found('internal error', result);
    if (STACK_FRAME.test(result.stderr) || STACK_FRAME.test(result.stdout))
      found('stack trace in the output', result);
    if (result.code !== 0 && result.code !== 1) found(`exit ${result.code}`, result);
    // A pod the scheduler could not even read is a crash in disguise.
    if (result.stdout.includes('invalid pod:')) found('a pod the scheduler could not read', result);

    if (command === 'validate') {
      validated = result;
      if (result.code === 1) {
        const lines = [...result.stdout.split('\n'), ...result.stderr.split('\n')]
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith('✗'));
        if (lines.length === 0) found('exit 1 without a problem line', result);
        for (const line of lines)
          if (!at.test(line.replace(/^karpenter-ts: error: /, '')))
            found(`a problem line without file:line: ${JSON.stringify(line)}`, result);
      }
      continue;
    }
    if (result.code !== 1) continue;
    const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) found('exit 1 without an error line', result);
    for (const line of lines) {
      const reason = line.replace(/^karpenter-ts: error: /, '');
      const aboutRun = RUN_REASONS.some((r) => r.test(reason));
      if (reason === line) found(`an error line without "karpenter-ts: error:"`, result);
      else if (!aboutRun && !at.test(reason))
        found(`an error without file:line: ${JSON.stringify(reason.slice(0, 300))}`, result);
      // What validate accepts, simulate reads: it never stops on a problem validate missed
      // (a snapshot reference problem validate warned of was not missed).
      else if (
        command === 'simulate' &&
        validated?.code === 0 &&
        !aboutRun &&
        !warnedOf(validated.stdout, file, reason)
      )
        found(
          `stops on a problem validate accepted: ${JSON.stringify(reason.slice(0, 300))}`,
          result,
        );
    }
  }
  return findings;
}

/**
 * Whether `validateOutput` (validate's stdout, exit 0) holds a warning of `reason`, a problem
 * `file:N field: message` another command stopped on: a line `file:N field: warning: …message`
 * (validate words a snapshot reference problem so, see validation/snapshot-references.ts: each
 * object is valid, but the commands that read the input as a cluster refuse it).
 */
export function warnedOf(validateOutput: string, file: string, reason: string): boolean {
  const match = new RegExp(`^(${escape(file)}:\\d+ \\S+: )(.+)$`).exec(reason);
  if (!match) return false;
  const [, where, message] = match;
  return validateOutput
    .split('\n')
    .some((line) => line.startsWith(`${where}warning: `) && line.endsWith(`: ${message}`));
}
