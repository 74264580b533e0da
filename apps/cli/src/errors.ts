/**
 * Errors the CLI reports to users as one line, with the exit code the command ends with.
 *
 * Exit codes: 0 success; 1 bad input (a manifest, a file, a value that cannot be used);
 * 2 usage (unknown command or option, a malformed flag value). Anything else is a bug and is
 * reported as an internal error (stack trace only with `--debug`).
 */

/** Exit code for bad input: unreadable files, malformed or invalid manifests. */
export const EXIT_INPUT = 1;
/** Exit code for a usage mistake: unknown option, malformed flag value. */
export const EXIT_USAGE = 2;

/** An error shown to the user as one line; `exitCode` is 1 (input) or 2 (usage). */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly exitCode: typeof EXIT_INPUT | typeof EXIT_USAGE = EXIT_INPUT,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A usage mistake (exit 2): a flag value that cannot be parsed or a missing argument. */
export class UsageError extends CliError {
  override readonly name: string = 'UsageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_USAGE, options);
  }
}

/**
 * Bad input in a manifest (exit 1), located at `file:document` (document counted from 1) and
 * optionally a field path (`spec.template.spec.requirements[0].operator`) and a file line.
 * The message reads `file:document[:line] [field: ]message`.
 */
export class ManifestError extends CliError {
  override readonly name: string = 'ManifestError';
  constructor(
    readonly file: string,
    readonly document: number,
    readonly detail: string,
    readonly field?: string,
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(
      `${file}:${document}${line === undefined ? '' : `:${line}`} ${field ? `${field}: ` : ''}${detail}`,
      EXIT_INPUT,
      options,
    );
  }
}
