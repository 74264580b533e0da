/**
 * Time for the controllers. Every reconciler reads time from an injectable {@link Clock}
 * (@karpenter-ts/cloudprovider's: milliseconds since the epoch), so tests and the simulator run
 * faster than real time. {@link ManualClock} is the clock they drive by hand.
 */
import type { Clock } from '@karpenter-ts/cloudprovider';

export type { Clock } from '@karpenter-ts/cloudprovider';
export { systemClock } from '@karpenter-ts/cloudprovider';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  #now: number;

  /** @param start milliseconds since the epoch; default 2025-01-01T00:00:00Z. */
  constructor(start = Date.UTC(2025, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Moves the clock forward by `seconds` (may be fractional). Raises RangeError when negative. */
  advance(seconds: number): void {
    if (!(seconds >= 0)) throw new RangeError(`cannot advance the clock by ${seconds} s`);
    this.#now += seconds * 1000;
  }

  /** Sets the time (milliseconds since the epoch); it may not go backwards. */
  set(ms: number): void {
    if (ms < this.#now) throw new RangeError('a ManualClock cannot go backwards');
    this.#now = ms;
  }
}

/** `clock.now()` as a Date. */
export function nowDate(clock: Clock): Date {
  return new Date(clock.now());
}

/** Milliseconds of a metav1.Time field (a Date in client-node models, an RFC 3339 string in JSON). */
export function timeMs(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
