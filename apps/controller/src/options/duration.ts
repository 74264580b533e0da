/**
 * Go duration strings (`time.ParseDuration`), the format upstream's duration flags take:
 * a sequence of decimal numbers with units `ns`, `us` (`µs`), `ms`, `s`, `m`, `h`, e.g. `10s`,
 * `1m30s`, `500ms`, `1.5h`. A bare `0` is allowed, as in Go.
 */

const UnitSeconds: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const Part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go duration into seconds. Raises RangeError naming the rule for anything else
 * (a number without a unit, an unknown unit, an empty string).
 */
export function parseGoDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '')
    throw new RangeError(`"${text}" is not a duration (expected e.g. 10s, 1m30s, 500ms)`);
  let total = 0;
  Part.lastIndex = 0;
  while (Part.lastIndex < rest.length) {
    const match = Part.exec(rest);
    if (match === null)
      throw new RangeError(`"${text}" is not a duration (expected e.g. 10s, 1m30s, 500ms)`);
    total += Number(match[1]) * (UnitSeconds[match[2] ?? ''] ?? Number.NaN);
  }
  return sign * total;
}

/** Formats seconds the way Go prints simple durations (`10s`, `1.5s`, `500ms`, `2m0s`). */
export function formatGoDuration(seconds: number): string {
  if (seconds !== 0 && Math.abs(seconds) < 1) return `${Math.round(seconds * 1e6) / 1e3}ms`;
  if (Math.abs(seconds) < 60) return `${seconds}s`;
  const m = Math.trunc(seconds / 60);
  return `${m}m${Math.round((seconds - m * 60) * 1e3) / 1e3}s`;
}
