/**
 * Reading manifests from files, folders (recursively) and standard input.
 */
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { CliError, type ManifestError } from '../errors.js';
import type { ManifestDocument } from './document.js';
import { parseManifestText } from './parse.js';

/** File extensions read when walking a folder. */
export const MANIFEST_EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

/** Objects from every input, in input order, and the per-document errors met on the way. */
export interface LoadResult {
  documents: ManifestDocument[];
  errors: ManifestError[];
  /** The files read, in order. */
  files: string[];
}

/**
 * The manifest files named by `path`: the file itself (any extension: the user named it), or
 * every `.yaml`/`.yml`/`.json` file under the folder, recursively, in sorted order, skipping
 * entries whose name starts with `.`. Raises CliError (exit 1) when the path does not exist or a
 * folder holds no manifest file (`no objects found in <path>`).
 */
export async function manifestFiles(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (cause) {
    throw new CliError(`${path}: no such file or folder`, 1, { cause });
  }
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  await walk(path, files);
  if (files.length === 0)
    throw new CliError(`no objects found in ${path} (no .yaml, .yml or .json file in this folder)`);
  return files;
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await walk(full, out);
    else if (entry.isFile() && MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase()))
      out.push(full);
  }
}

/**
 * Loads every object from `paths` (files, folders, or `-` for standard input). Malformed
 * documents do not stop the load: they come back in `errors`, so `validate` can report them
 * all. Raises CliError (exit 1) for a path that does not exist or cannot be read, a path that
 * holds no object (`no objects found in <path>`: an empty file, only comments, a folder of such
 * files or without YAML), or when `paths` is empty. A file named twice (`a.yaml a.yaml`, or a
 * file and its folder) is read once, as is `-`: reading it again would make every object in it
 * a duplicate of itself.
 */
export async function loadManifests(
  paths: readonly string[],
  stdin: () => Promise<string> = readStdin,
): Promise<LoadResult> {
  if (paths.length === 0) throw new CliError('no input: name at least one file or folder');
  const result: LoadResult = { documents: [], errors: [], files: [] };
  const read = new Set<string>();
  for (const path of paths) {
    const before = result.documents.length + result.errors.length;
    const files = path === '-' ? ['-'] : await manifestFiles(path);
    let fresh = 0;
    for (const file of files) {
      const key = file === '-' ? '-' : await realpath(file).catch(() => resolve(file));
      if (read.has(key)) continue;
      read.add(key);
      fresh++;
      let text: string;
      try {
        text = file === '-' ? await stdin() : await readFile(file, 'utf8');
      } catch (cause) {
        throw new CliError(
          `${file}: cannot read: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`,
          1,
          {
            cause,
          },
        );
      }
      const name = file === '-' ? '<stdin>' : file;
      const parsed = parseManifestText(text, name);
      result.files.push(name);
      // One push each: spreading a file of hundreds of thousands of objects overflows the stack.
      for (const doc of parsed.documents) result.documents.push(doc);
      for (const error of parsed.errors) result.errors.push(error);
    }
    // An input that holds nothing is almost always a mistake (wrong file, empty redirect); one
    // whose files were all read already, through another path, held what they hold.
    if (fresh === files.length && result.documents.length + result.errors.length === before)
      throw new CliError(`no objects found in ${path === '-' ? '<stdin>' : path}`);
  }
  return result;
}

/**
 * Like {@link loadManifests} but raises the first malformed document as a ManifestError, for
 * commands that cannot work on a partial input (simulate, explain, compare).
 */
export async function loadManifestsStrict(paths: readonly string[]): Promise<ManifestDocument[]> {
  const result = await loadManifests(paths);
  const first = result.errors[0];
  if (first) throw first;
  return result.documents;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
