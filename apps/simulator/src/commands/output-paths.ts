/**
 * Output paths checked before a run: a day of simulation should not end in an error because
 * `--out` names a folder that cannot be made or written, or `--report` a file in one.
 */
import { access, constants, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CliError } from '@karpenter-ts/cli';

/**
 * Makes the folder `dir` (and its parents) and checks it is writable. Raises CliError (exit 1)
 * naming `flag`, the path and the system's reason (ENOTDIR, EACCES, EROFS, ...).
 */
export async function prepareOutputFolder(flag: string, dir: string): Promise<void> {
  try {
    await makeFolder(dir);
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

/**
 * `mkdir -p` one level at a time, from the nearest folder that exists. Node's recursive mkdir
 * never settles on a path under /proc (the kernel answers ENOENT for the child and EEXIST for
 * its parent, and libuv retries forever); each level made on its own fails with the child's
 * error instead. A level another process made meanwhile (shards sharing a volume) is fine.
 */
async function makeFolder(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    const kind = await stat(d).then(
      (s) => (s.isDirectory() ? 'folder' : 'other'),
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return 'missing';
        throw error;
      },
    );
    if (kind === 'other')
      throw Object.assign(new Error(`${d} is not a folder`), { code: 'ENOTDIR' });
    if (kind === 'folder') break;
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing)
    await mkdir(d).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST' && (await stat(d)).isDirectory()) return;
      throw error;
    });
}

function reason(error: unknown): string {
  const cause = error instanceof CliError ? error.cause : error;
  const e = cause as NodeJS.ErrnoException;
  return e.code ?? (e instanceof Error ? e.message : String(e));
}
