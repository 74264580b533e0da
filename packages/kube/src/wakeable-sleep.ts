/**
 * The pause of a retry loop that `stop()` must be able to cut short (the informer's backoff
 * between watch attempts, the leader elector's retry period), so stopping never waits it out.
 */

/** One loop's pause: {@link sleep} waits, {@link wake} ends the current wait at once. */
export class WakeableSleep {
  #wake: (() => void) | undefined;

  /** Resolves after `ms` milliseconds, or as soon as {@link wake} is called. Never rejects. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  /** Ends the current wait (no effect when none is pending). */
  wake(): void {
    this.#wake?.();
  }
}
