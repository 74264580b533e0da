/**
 * Nearest-rank percentiles of durations.
 */
import type { Percentiles } from './format.js';

/** p50, p95, p99 and max of `seconds` (nearest rank, rounded to ms); null for none. */
export function percentiles(seconds: readonly number[]): Percentiles | null {
  if (seconds.length === 0) return null;
  const sorted = [...seconds].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return {
    count: sorted.length,
    p50: round3(rank(50)),
    p95: round3(rank(95)),
    p99: round3(rank(99)),
    max: round3(sorted[sorted.length - 1] ?? 0),
  };
}

/** Rounded to 3 decimals (milliseconds of seconds). */
export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Rounded to 6 decimals (micro-dollars). */
export function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
