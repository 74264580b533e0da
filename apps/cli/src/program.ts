/**
 * The `karpenter-ts` command line: commander setup, shared options and the one place errors
 * become exit codes.
 *
 * Exit codes: 0 ok; 1 bad input (or `validate` found violations, or `simulate` left pods
 * pending with `--fail-on-pending`); 2 usage. Errors print as one line
 * `karpenter-ts: error: <message>`; a stack trace only with `--debug`.
 */
import { Command, CommanderError } from 'commander';
import { commanderOutput, packageVersion } from './commander-output.js';
import { CliError, EXIT_INPUT, EXIT_USAGE } from './errors.js';
import type { Io } from './io.js';
import { registerCatalog } from './commands/catalog.js';
import { registerCompare } from './commands/compare.js';
import { registerDiff } from './commands/diff.js';
import { registerDisrupt } from './commands/disrupt.js';
import { registerExplain } from './commands/explain.js';
import { registerSimulate } from './commands/simulate.js';
import { registerValidate } from './commands/validate.js';

/** State shared by the commands of one run: where to write and the exit code to end with. */
export interface Runtime {
  readonly io: Io;
  exitCode: number;
}

/** Builds the command tree writing to `runtime.io`. */
export function buildProgram(runtime: Runtime): Command {
  const program = new Command('karpenter-ts')
    .description(
      'Karpenter in TypeScript: validate NodePools and NodeClasses, browse instance-type catalogs, and ' +
        'simulate how Karpenter would provision nodes for your workloads on Azure, AWS or a simulated cloud.',
    )
    .version(packageVersion(new URL('../package.json', import.meta.url)), '-V, --version')
    .option('--debug', 'print stack traces of errors')
    .exitOverride()
    .configureOutput(commanderOutput(runtime.io, 'karpenter-ts', 'karpenter-ts'));
  registerValidate(program, runtime);
  registerCatalog(program, runtime);
  registerSimulate(program, runtime);
  registerExplain(program, runtime);
  registerCompare(program, runtime);
  registerDisrupt(program, runtime);
  registerDiff(program, runtime);
  for (const command of program.commands) {
    command
      .exitOverride()
      .configureOutput(
        commanderOutput(runtime.io, 'karpenter-ts', `karpenter-ts ${command.name()}`),
      );
  }
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
    if (error instanceof CommanderError) {
      // Help and version are "errors" in commander's exitOverride mode; their code is 0.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (error instanceof CliError) {
      // Several problems (a snapshot's) are one line each.
      for (const line of error.message.split('\n')) io.err(`karpenter-ts: error: ${line}\n`);
      if (debug) io.err(`${error.stack ?? ''}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(
      `karpenter-ts: internal error: ${message.split('\n')[0]}${debug ? '' : ' (rerun with --debug for details)'}\n`,
    );
    if (debug && error instanceof Error) io.err(`${error.stack ?? ''}\n`);
    return EXIT_INPUT;
  }
}
