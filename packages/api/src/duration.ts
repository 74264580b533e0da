/**
 * Durations as the karpenter.sh CRDs accept them: one or more `<digits><h|m|s>` groups
 * (`30s`, `1h30m`, `720h`), optionally the literal `Never` where allowed.
 */

/** Raised by {@link parseDuration} for text that is not such a duration. */
export class DurationError extends Error {
  constructor(
    text: string,
    why = 'is not a duration of hours/minutes/seconds such as 30s, 10m, 1h30m',
  ) {
    super(`${JSON.stringify(text)} ${why}`);
    this.name = 'DurationError';
  }
}

const DURATION = /^([0-9]+[hms])+$/;

/** The largest duration Go's `time.Duration` holds (2562047h47m16.854775807s), in whole seconds. */
export const MaxGoDurationSeconds = 9_223_372_036;
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * Parses a duration into whole seconds; `Never` gives `null` (no limit).
 * @throws DurationError for anything else (including Go units the CRDs reject, like `ms`, `1.5h`)
 *   and for durations longer than Go's `time.Duration` holds (upstream Karpenter could not read
 *   them: it fails to decode such an object).
 */
export function parseDuration(text: string): number | null {
  if (text === 'Never') return null;
  if (!DURATION.test(text)) throw new DurationError(text);
  let seconds = 0;
  for (const m of text.matchAll(/([0-9]+)([hms])/g))
    seconds += Number(m[1]) * (UNIT_SECONDS[m[2] ?? 's'] ?? 1);
  if (!(seconds <= MaxGoDurationSeconds)) {
    throw new DurationError(text, 'is longer than the largest Go duration (2562047h47m16s)');
  }
  return seconds;
}

/** Formats whole seconds the way Go's `time.Duration.String()` does for them (`1h30m0s`, `45s`, `0s`). */
export function formatDuration(seconds: number): string {
  if (!Number.isSafeInteger(seconds) || seconds < 0)
    throw new RangeError(`seconds must be a non-negative integer, got ${seconds}`);
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
