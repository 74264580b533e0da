/**
 * The provisioning batch window (upstream `provisioning/batcher.go`):
 * the first trigger opens a window; each new trigger (a pod UID not seen in this window) extends
 * it by the idle duration (default 1 s), up to the max duration (default 10 s) from the first.
 * Repeated triggers for the same pod do not extend it.
 *
 * Upstream blocks a goroutine on the window; here the window is read against an injectable
 * clock, so the provisioner asks {@link Batcher.secondsUntilClosed} and requeues.
 */
import type { Clock } from '../clock.js';

/** Options of {@link Batcher}; seconds. */
export interface BatcherOptions {
  /** `BATCH_IDLE_DURATION`; default 1. */
  readonly idleSeconds?: number;
  /** `BATCH_MAX_DURATION`; default 10. */
  readonly maxSeconds?: number;
}

/** See the module comment. */
export class Batcher {
  readonly #clock: Clock;
  readonly idleSeconds: number;
  readonly maxSeconds: number;
  readonly #triggered = new Set<string>();
  #first: number | undefined;
  #last = 0;

  /** Raises RangeError unless 0 < idle ≤ max. */
  constructor(clock: Clock, options: BatcherOptions = {}) {
    this.#clock = clock;
    this.idleSeconds = options.idleSeconds ?? 1;
    this.maxSeconds = options.maxSeconds ?? 10;
    if (!(this.idleSeconds > 0) || !(this.maxSeconds >= this.idleSeconds)) {
      throw new RangeError(
        `batch durations must satisfy 0 < idle (${this.idleSeconds} s) <= max (${this.maxSeconds} s)`,
      );
    }
  }

  /** Records a trigger for `id` (a pod UID); opens the window or extends it for a new id. */
  trigger(id: string): void {
    if (this.#triggered.has(id)) return;
    const now = this.#clock.now();
    this.#triggered.add(id);
    this.#first ??= now;
    this.#last = now;
  }

  /** True when no trigger is waiting. */
  empty(): boolean {
    return this.#first === undefined;
  }

  /**
   * Seconds until the window closes: 0 when it has closed (idle or max duration reached),
   * Infinity when no window is open.
   */
  secondsUntilClosed(): number {
    if (this.#first === undefined) return Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    const closesAt = Math.min(
      this.#last + this.idleSeconds * 1000,
      this.#first + this.maxSeconds * 1000,
    );
    return Math.max(0, (closesAt - now) / 1000);
  }

  /** Ends the window and returns the ids it collected (empty when none was open). */
  take(): string[] {
    const ids = [...this.#triggered];
    this.#triggered.clear();
    this.#first = undefined;
    this.#last = 0;
    return ids;
  }
}
