/**
 * Problems with a scenario (or a file it names) and how they print: one line each,
 * `file:line field: message`, e.g.
 * `scenarios/day.yaml:14 events[2].at: -5m is before time 0 (the scenario starts at 0s)`.
 */

/** One problem: the file, its 1-based line, the field path (may be `''`) and what is wrong. */
export interface ScenarioProblem {
  readonly file: string;
  readonly line: number;
  readonly field: string;
  readonly message: string;
}

/** `file:line field: message` (the field and its colon left out when there is none). */
export function formatProblem(p: ScenarioProblem): string {
  return `${p.file}:${p.line} ${p.field ? `${p.field}: ` : ''}${p.message}`;
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
