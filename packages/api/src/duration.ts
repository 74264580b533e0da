/**
 * Durations as the karpenter.sh CRDs accept them: one or more `<digits><h|m|s>` groups
 * (`30s`, `1h30m`, `720h`), optionally the literal `Never` where allowed.
 */

/** Raised by {@link parseDuration} for text that is not such a duration. */
export class DurationError extends Error {
  constructor(text: string) {
    super(
      `${JSON.stringify(text)} is not a duration of hours/minutes/seconds such as 30s, 10m, 1h30m`,
    );
    this.name = 'DurationError';
  }
}

const DURATION = /^([0-9]+[hms])+$/;
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * Parses a duration into whole seconds; `Never` gives `null` (no limit).
 * @throws DurationError for anything else (including Go units the CRDs reject, like `ms`, `1.5h`).
 */
export function parseDuration(text: string): number | null {
  if (text === 'Never') return null;
  if (!DURATION.test(text)) throw new DurationError(text);
  let seconds = 0;
  for (const m of text.matchAll(/([0-9]+)([hms])/g))
    seconds += Number(m[1]) * (UNIT_SECONDS[m[2] ?? 's'] ?? 1);
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
