#!/usr/bin/env node
/**
 * The `karpenter-ts` binary: runs the program on the process arguments and exits with its code.
 */
import { processIo } from './io.js';
import { run } from './program.js';

process.exitCode = await run(process.argv.slice(2), processIo);
