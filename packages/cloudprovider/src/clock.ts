/**
 * An injectable source of time, so the simulator and tests can run faster than real time.
 */

/** Reads the current time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The real clock (`Date.now()`). */
export const systemClock: Clock = { now: () => Date.now() };
