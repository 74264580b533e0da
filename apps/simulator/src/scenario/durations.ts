/**
 * Scenario durations: a number of seconds, or `<number><unit>` parts (`d`, `h`, `m`, `s`, `ms`)
 * such as `90s`, `1h30m`, `1.5d`, with an optional leading `-`.
 */

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  d: 86_400,
  h: 3_600,
  m: 60,
  s: 1,
  ms: 0.001,
};
const PART = /(\d+(?:\.\d+)?)(d|h|ms|m|s)/g;

/** Seconds of a duration value (the schema has checked its form); NaN when it has none. */
export function durationSeconds(value: number | string): number {
  if (typeof value === 'number') return value;
  const negative = value.startsWith('-');
  const body = negative ? value.slice(1) : value;
  let seconds = 0;
  let consumed = 0;
  for (const m of body.matchAll(PART)) {
    seconds += Number(m[1]) * (UNIT_SECONDS[m[2] ?? 's'] ?? 1);
    consumed += m[0].length;
  }
  if (consumed !== body.length || consumed === 0) return Number.NaN;
  return negative ? -seconds : seconds;
}

/** Seconds as a short duration: `0s`, `45s`, `15m`, `1h30m`, `2d3h`, `1.5s`. */
export function formatSeconds(seconds: number): string {
  if (seconds === 0) return '0s';
  const sign = seconds < 0 ? '-' : '';
  let rest = Math.abs(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  if (rest > 0) parts.push(`${Math.round(rest * 1000) / 1000}s`);
  return sign + parts.join('');
}
