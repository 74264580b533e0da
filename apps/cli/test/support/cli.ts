/**
 * Runs the CLI for tests, in process or as the built binary, and returns what a user would read.
 * Colors are stripped: test runners (nx sets FORCE_COLOR) decide whether colors are on, and the
 * tests check the text, not the terminal styling.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { memoryIo } from '../../src/io.js';
import { run } from '../../src/program.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `karpenter-ts <argv...>` in this process. */
export async function cli(...argv: string[]): Promise<CliResult> {
  const io = memoryIo();
  const code = await run(argv, io);
  return {
    code,
    stdout: stripVTControlCharacters(io.stdout),
    stderr: stripVTControlCharacters(io.stderr),
  };
}

const mainJs = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const exec = promisify(execFile);

/** `node dist/main.js <argv...>` as a child process with colors off, as in a pipe. */
export async function binary(...argv: string[]): Promise<CliResult> {
  if (!existsSync(mainJs))
    throw new Error(`${mainJs} is missing: run "npm run build" in apps/cli first`);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  try {
    const { stdout, stderr } = await exec(process.execPath, [mainJs, ...argv], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
