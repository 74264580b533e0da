/** Writes YAML documents for a test to a fresh temporary folder. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes `docs` joined by `---` lines to `input.yaml` in a new temporary folder; returns its path. */
export async function writeManifests(...docs: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-cli-test-'));
  const file = join(dir, 'input.yaml');
  await writeFile(file, docs.join('---\n'));
  return file;
}
