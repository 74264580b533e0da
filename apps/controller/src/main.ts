#!/usr/bin/env node
/**
 * The `karpenter-ts-controller` binary: parses options (exit 2 on bad input, naming the flag,
 * variable and rule), starts the operator, and exits with its code (1 when startup fails).
 */
import { readFileSync } from 'node:fs';
import { startOperator } from './operator.js';
import { parseOptions } from './options/options.js';

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const parsed = parseOptions(process.argv.slice(2), process.env, version());
if (parsed.kind === 'exit') {
  (parsed.code === 0 ? process.stdout : process.stderr).write(parsed.output);
  process.exit(parsed.code);
}
try {
  const operator = await startOperator(parsed.options, { version: version() });
  process.exitCode = await operator.done;
} catch (err) {
  process.stderr.write(
    `karpenter-ts-controller: error: ${(err as Error)?.message ?? String(err)}\n`,
  );
  process.exitCode = 1;
}
