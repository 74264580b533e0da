/**
 * Output paths checked before a run: a day of simulation should not end in an error because
 * `--out` names a folder that cannot be made or written, or `--report` a file in one.
 */
import { access, constants, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError } from '@karpenter-ts/cli';

/**
 * Makes the folder `dir` (and its parents) and checks it is writable. Raises CliError (exit 1)
 * naming `flag`, the path and the system's reason (ENOTDIR, EACCES, EROFS, ...).
 */
export async function prepareOutputFolder(flag: string, dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (error) {
    throw new CliError(`${flag} ${dir}: cannot write to this folder (${reason(error)})`, 1, {
      cause: error,
    });
  }
}

/** Checks that the file `file` can be written: its folder is made and writable (see above). */
export async function prepareOutputFile(flag: string, file: string): Promise<void> {
  await prepareOutputFolder(flag, dirname(file)).catch((error: unknown) => {
    throw new CliError(`${flag} ${file}: cannot write this file (${reason(error)})`, 1, {
      cause: error,
    });
  });
}

function reason(error: unknown): string {
  const cause = error instanceof CliError ? error.cause : error;
  const e = cause as NodeJS.ErrnoException;
  return e.code ?? (e instanceof Error ? e.message : String(e));
}
