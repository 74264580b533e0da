/**
 * What the `karpenter-ts` and `karpenter-ts-sim` command lines share around commander: where it
 * writes, the one-line form its usage errors take, and the version a package.json gives.
 */
import { readFileSync } from 'node:fs';
import type { Io } from './io.js';

/**
 * commander's output for a program named `name`: text to `io`; a usage error
 * (`error: unknown option '--x'`) as `<name>: error: unknown option '--x' (see <usage> --help)`.
 */
export function commanderOutput(io: Io, name: string, usage: string) {
  return {
    writeOut: (text: string) => io.out(text),
    writeErr: (text: string) => io.err(text),
    outputError: (text: string, write: (text: string) => void) => {
      const message = text.trim().replace(/^error: /, '');
      write(`${name}: error: ${message} (see ${usage} --help)\n`);
    },
  };
}

/** The `version` of the package.json at `url`, or `0.0.0` when it cannot be read. */
export function packageVersion(url: URL): string {
  try {
    const pkg = JSON.parse(readFileSync(url, 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
