/**
 * Problems with a scenario (or a file it names) and how they print: one line each,
 * `file:line field: message`, e.g.
 * `scenarios/day.yaml:14 events[2].at: -5m is before time 0 (the scenario starts at 0s)`.
 */

/**
 * One problem: the file, its 1-based line (0: the file as a whole, e.g. it cannot be read), the
 * field path (may be `''`) and what is wrong.
 */
export interface ScenarioProblem {
  readonly file: string;
  readonly line: number;
  readonly field: string;
  readonly message: string;
}

/** `file:line field: message` (`file: …` when the line is 0; the field and its colon left out when none). */
export function formatProblem(p: ScenarioProblem): string {
  return `${p.file}${p.line > 0 ? `:${p.line}` : ':'} ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/** Words for the read errors a user meets, with the code kept for searching. */
const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'a folder, not a file',
  EACCES: 'permission denied',
  ENOTDIR: 'a path through something that is not a folder',
};

/**
 * The problem of a file that cannot be read: `day.yaml: cannot read: no such file (ENOENT)`
 * (line 0, the file as a whole). `what` prefixes the message (`cannot read trace.csv`).
 */
export function unreadable(file: string, error: unknown, what = 'cannot read'): ScenarioProblem {
  return { file, line: 0, field: '', message: `${what}: ${readErrorText(error)}` };
}

/** `no such file (ENOENT)` for a Node.js read error; its message for any other error. */
export function readErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return (error as Error).message;
  const words = READ_ERRORS[code];
  return words === undefined ? code : `${words} (${code})`;
}

/** A scenario that cannot run: every problem found, in file and line order. Nothing ran. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  readonly problems: readonly ScenarioProblem[];

  constructor(problems: readonly ScenarioProblem[]) {
    const sorted = [...problems].sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line,
    );
    super(sorted.map(formatProblem).join('\n'));
    this.problems = sorted;
  }
}

/** `events[2].at` from path segments `['events', 2, 'at']`. */
export function fieldName(path: readonly (string | number)[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}
