/**
 * Go duration strings (`time.ParseDuration`), the format upstream's duration flags take:
 * a sequence of decimal numbers with units `ns`, `us` (`µs`), `ms`, `s`, `m`, `h`, e.g. `10s`,
 * `1m30s`, `500ms`, `1.5h`. A bare `0` is allowed, as in Go.
 */
import { parseGoDuration as parseGo } from '@karpenter-ts/controllers';

/**
 * Parses a Go duration into seconds (the controllers' `parseGoDuration`, which the pod
 * do-not-disrupt annotation uses too). Raises RangeError naming the rule for anything else
 * (a number without a unit, an unknown unit, an empty string).
 */
export function parseGoDuration(text: string): number {
  const seconds = parseGo(text.trim());
  if (seconds === undefined)
    throw new RangeError(`"${text}" is not a duration (expected e.g. 10s, 1m30s, 500ms)`);
  return seconds;
}

/** Formats seconds the way Go prints simple durations (`10s`, `1.5s`, `500ms`, `2m0s`). */
export function formatGoDuration(seconds: number): string {
  if (seconds !== 0 && Math.abs(seconds) < 1) return `${Math.round(seconds * 1e6) / 1e3}ms`;
  if (Math.abs(seconds) < 60) return `${seconds}s`;
  const m = Math.trunc(seconds / 60);
  return `${m}m${Math.round((seconds - m * 60) * 1e3) / 1e3}s`;
}
