#!/usr/bin/env node
/**
 * The `karpenter-ts` binary: runs the program on the process arguments and exits with its code.
 */
import { processIo } from './io.js';
import { run } from './program.js';

// A reader that stops early (`karpenter-ts catalog | head -1`) closes the pipe: that is not an
// error worth a stack trace, so stop writing and exit quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await run(process.argv.slice(2), processIo);
