/**
 * Structured JSON logs with pino, shaped like upstream's zap output:
 * keys `message`, `level` (capitalised: `DEBUG`, `INFO`, `WARN`, `ERROR`), `time` (ISO 8601),
 * `logger` (the component: `controller`, `controller.provisioner`, ...) and `commit` (our
 * version). Each line is one JSON object.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../options/options.js';

export type { Logger } from 'pino';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  readonly level: LogLevel;
  /** `stdout`, `stderr` or file paths (appended to, created with their folder). */
  readonly outputPaths: readonly string[];
  /** Written into every line as `commit`. */
  readonly commit: string;
  /** For tests: write here instead of `outputPaths`. */
  readonly stream?: DestinationStream;
}

/** The destination of one output path (`stdout` and `stderr` are written synchronously). */
function destination(path: string): DestinationStream {
  if (path === 'stdout') return pino.destination({ dest: 1, sync: true });
  if (path === 'stderr') return pino.destination({ dest: 2, sync: true });
  return pino.destination({ dest: path, sync: true, mkdir: true, append: true });
}

/** The root logger (`logger: "controller"`); make component loggers with {@link componentLogger}. */
export function createLogger(options: LoggerOptions): Logger {
  const streams = options.stream
    ? options.stream
    : options.outputPaths.length === 1
      ? destination(options.outputPaths[0] ?? 'stdout')
      : pino.multistream(
          options.outputPaths.map((p) => ({ stream: destination(p), level: options.level })),
        );
  return pino(
    {
      level: options.level,
      messageKey: 'message',
      errorKey: 'error',
      base: { logger: 'controller', commit: options.commit },
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label.toUpperCase() }) },
    },
    streams,
  );
}

/** A child logger for a component: `logger` becomes `controller.<name>`. */
export function componentLogger(root: Logger, name: string): Logger {
  return root.child({ logger: `controller.${name}` });
}
