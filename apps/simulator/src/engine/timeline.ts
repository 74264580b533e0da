/**
 * The scenario's timeline: actions at clock times, run in time order and, at the same time, in
 * the order they were scheduled (scenario order first, then what actions schedule).
 */

/** Something to do at a time. */
export type Action = () => Promise<void> | void;

interface Entry {
  readonly atMs: number;
  readonly seq: number;
  readonly action: Action;
}

/** See the module comment. */
export class Timeline {
  #entries: Entry[] = [];
  #seq = 0;
  #sorted = true;

  /** Schedules `action` at clock `atMs`. */
  schedule(atMs: number, action: Action): void {
    this.#entries.push({ atMs, seq: this.#seq++, action });
    this.#sorted = false;
  }

  /** Clock ms of the earliest scheduled action, or undefined when none is left. */
  nextMs(): number | undefined {
    this.#sort();
    return this.#entries[0]?.atMs;
  }

  /** Runs (and removes) every action due at or before `nowMs`, including ones they schedule then. */
  async runDue(nowMs: number): Promise<number> {
    let ran = 0;
    for (;;) {
      this.#sort();
      const first = this.#entries[0];
      if (first === undefined || first.atMs > nowMs) return ran;
      this.#entries.shift();
      await first.action();
      ran++;
    }
  }

  #sort(): void {
    if (this.#sorted) return;
    this.#entries.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
    this.#sorted = true;
  }
}
