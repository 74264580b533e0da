/**
 * When each object's reconciler is next due in the controller loop, as a work queue keeps it:
 * an object runs on first sight, when its version changed (a watch event), or when its requeue
 * time (clock milliseconds) comes; objects gone from the cluster are forgotten.
 */
export class RequeueTimes {
  readonly #due = new Map<string, { at: number; version: string | undefined }>();
  readonly #seen = new Set<string>();

  /** Whether `key` at `version` should run at `now` (ms); marks it seen for {@link forgetUnseen}. */
  due(key: string, version: string | undefined, now: number): boolean {
    this.#seen.add(key);
    const d = this.#due.get(key);
    return d === undefined || d.version !== version || now >= d.at;
  }

  /** Records that `key` ran and saw `version`; next due at `at` (ms; Infinity: only on a change). */
  ran(key: string, version: string | undefined, at: number): void {
    this.#due.set(key, { at, version });
  }

  /** Forgets the keys not passed to {@link due} since the last call. */
  forgetUnseen(): void {
    for (const key of this.#due.keys()) if (!this.#seen.has(key)) this.#due.delete(key);
    this.#seen.clear();
  }

  /** The earliest requeue time recorded (ms), or undefined when none. */
  earliest(): number | undefined {
    let at: number | undefined;
    for (const d of this.#due.values()) if (at === undefined || d.at < at) at = d.at;
    return at;
  }
}
