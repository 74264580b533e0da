#!/usr/bin/env node
/**
 * The `karpenter-ts-controller` binary: parses options (exit 2 on bad input, naming the flag,
 * variable and rule), sizes the V8 heap for `--memory-limit` (restarting itself once with
 * `--max-old-space-size`, runtime/heap-limit.ts), starts the operator, and exits with its code
 * (1 when startup fails; 0 when a signal stopped it). Every fatal error is one stderr line,
 * `karpenter-ts-controller: error: <message>`.
 */
// The signal trap comes first and alone: static imports all load before the first statement
// runs, and loading the options (commander) alone takes a noticeable part of a second, during
// which a SIGTERM would otherwise kill the process. Everything else is imported after it.
import { trapEarlySignals } from './runtime/early-signals.js';

// Until the launcher or the operator has its handlers, a signal is recorded instead of fatal.
const early = trapEarlySignals();

const { readFileSync } = await import('node:fs');
const { fatalErrorLine, fatalErrorLineOf } = await import('./fatal-error.js');
const { parseOptions } = await import('./options/options.js');
const { planHeapLimit } = await import('./runtime/heap-limit.js');
const { exitAsChild, relaunchWithHeapLimit, watchLauncher } =
  await import('./runtime/heap-relaunch.js');

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

const heap = planHeapLimit({
  memoryLimit: parsed.options.memoryLimit,
  execArgv: process.execArgv,
  env: process.env,
});
if (heap.kind === 'refuse') {
  process.stderr.write(fatalErrorLine(heap.message));
  process.exit(2);
}
if (heap.kind === 'relaunch') {
  // The launcher loads nothing else (the operator's modules would only add to its memory).
  try {
    if (early.received === undefined) {
      // Forwarding starts with the spawn, in the same tick.
      const child = relaunchWithHeapLimit({ oldSpaceMiB: heap.oldSpaceMiB });
      early.release();
      exitAsChild(await child);
    }
  } catch (err) {
    process.stderr.write(fatalErrorLineOf(err));
    process.exitCode = 1;
  }
} else {
  watchLauncher();
  const { startOperator, StartupInterrupted } = await import('./operator.js');
  try {
    if (early.received !== undefined) throw new StartupInterrupted(`received ${early.received}`);
    // startOperator installs its signal handlers before it first waits.
    const starting = startOperator(parsed.options, { version: version() });
    early.release();
    const operator = await starting;
    process.exitCode = await operator.done;
  } catch (err) {
    early.release();
    if (err instanceof StartupInterrupted) {
      process.exitCode = 0;
    } else {
      process.stderr.write(fatalErrorLineOf(err));
      process.exitCode = 1;
    }
  }
}
