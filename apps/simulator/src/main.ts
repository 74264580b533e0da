#!/usr/bin/env node
/**
 * The `karpenter-ts-sim` binary: runs the program on the process arguments and exits with its code.
 */
import { processIo } from '@karpenter-ts/cli';
import { run } from './program.js';

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await run(process.argv.slice(2), processIo);
