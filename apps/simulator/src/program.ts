/**
 * The `karpenter-ts-sim` command line (commander, as the `karpenter-ts` CLI): `run`, `report`,
 * `sweep`, `validate`, `schema`, and the one place errors become exit codes.
 *
 * Exit codes: 0 ok; 1 bad input (a scenario problem: one `file:line field: message` line each,
 * nothing ran); 2 usage. Other errors print as `karpenter-ts-sim: error: <message>`.
 */
import { Command, CommanderError } from 'commander';
import {
  CliError,
  commanderOutput,
  EXIT_INPUT,
  EXIT_USAGE,
  packageVersion,
  type Io,
} from '@karpenter-ts/cli';
import { registerReport } from './commands/report.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerSweep } from './commands/sweep.js';
import { registerValidate } from './commands/validate.js';
import type { Runtime } from './runtime.js';
import { ScenarioError } from './scenario/problems.js';

/** Builds the command tree writing to `runtime.io`. */
export function buildProgram(runtime: Runtime): Command {
  const program = new Command('karpenter-ts-sim')
    .description(
      'Replay a scenario (traffic curves, batch jobs, spot interruptions, capacity errors, drift) over ' +
        'time on the real Karpenter controllers, with the Azure and AWS catalogs and prices: no cloud, no cluster.',
    )
    .version(packageVersion(new URL('../package.json', import.meta.url)), '-V, --version')
    .option('--debug', 'print stack traces of errors')
    .exitOverride()
    .configureOutput(commanderOutput(runtime.io, 'karpenter-ts-sim', 'karpenter-ts-sim'));
  registerRun(program, runtime);
  registerReport(program, runtime);
  registerSweep(program, runtime);
  registerValidate(program, runtime);
  registerSchema(program, runtime);
  for (const command of program.commands)
    command
      .exitOverride()
      .configureOutput(
        commanderOutput(runtime.io, 'karpenter-ts-sim', `karpenter-ts-sim ${command.name()}`),
      );
  return program;
}

/**
 * Runs the command line `argv` (without `node` and the script) and resolves with the exit code.
 * Never throws: every error is printed to `io.err`.
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const runtime: Runtime = { io, exitCode: 0 };
  const debug = argv.includes('--debug');
  try {
    if (argv.length === 0) {
      buildProgram(runtime).outputHelp({ error: true });
      return EXIT_USAGE;
    }
    await buildProgram(runtime).parseAsync([...argv], { from: 'user' });
    return runtime.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof ScenarioError) {
      io.err(`${error.message}\n`);
      return EXIT_INPUT;
    }
    if (error instanceof CliError) {
      io.err(`karpenter-ts-sim: error: ${error.message}\n`);
      if (debug) io.err(`${error.stack ?? ''}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(
      `karpenter-ts-sim: internal error: ${message.split('\n')[0]}${debug ? '' : ' (rerun with --debug for details)'}\n`,
    );
    if (debug && error instanceof Error) io.err(`${error.stack ?? ''}\n`);
    return EXIT_INPUT;
  }
}
