/**
 * Where a command writes: stdout for results, stderr for errors, progress and notes. Tests pass
 * an in-memory pair; the binary passes the process streams.
 */

/** The two output streams of a command run. */
export interface Io {
  /** Results (tables, JSON, YAML), on stdout. */
  out(text: string): void;
  /** Errors, warnings and notes, on stderr. */
  err(text: string): void;
}

/** The process's stdout and stderr. */
export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** An Io that collects everything written, for tests. */
export function memoryIo(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
  };
  return io;
}
