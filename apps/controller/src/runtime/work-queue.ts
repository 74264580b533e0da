/**
 * A keyed work queue with the guarantees controller-runtime's gives reconcilers: a key is never
 * reconciled by two workers at once; adding a key that is waiting does nothing, and adding one
 * that is running makes it run once more afterwards; `requeueAfter` re-adds after that many
 * seconds (the earliest pending time wins); a reconciler that throws is retried with per-key
 * exponential backoff (5 ms doubling up to 1000 s, reset on success).
 */
import type { ReconcileResult } from '@karpenter-ts/controllers';

/** Reconciles one key. */
export type ReconcileFn = (key: string) => Promise<ReconcileResult | void>;

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Name for logs and errors. */
  readonly name: string;
  readonly reconcile: ReconcileFn;
  /** Keys reconciled at once (async workers); default 10. */
  readonly concurrency?: number;
  /** Called with a reconciler's error before the key is retried. */
  readonly onError?: (key: string, error: unknown, retryInSeconds: number) => void;
  /** Base and cap of the retry backoff, seconds; default 0.005 and 1000 (upstream). */
  readonly backoffBaseSeconds?: number;
  readonly backoffMaxSeconds?: number;
}

/** See the module comment. Start with {@link start}; {@link stop} waits for running keys. */
export class WorkQueue {
  readonly name: string;
  readonly #o: WorkQueueOptions;
  readonly #concurrency: number;
  readonly #ready: string[] = [];
  readonly #queued = new Set<string>();
  readonly #running = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #failures = new Map<string, number>();
  readonly #inFlight = new Set<Promise<void>>();
  #started = false;
  #stopped = false;

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.#o = options;
    this.#concurrency = Math.max(1, options.concurrency ?? 10);
  }

  /** Begins processing keys added before and after. */
  start(): void {
    this.#started = true;
    this.#pump();
  }

  /** Adds a key now, or after `delaySeconds` (a no-op once stopped). */
  add(key: string, delaySeconds = 0): void {
    if (this.#stopped) return;
    if (delaySeconds > 0) {
      const at = Date.now() + delaySeconds * 1000;
      const existing = this.#timers.get(key);
      if (existing !== undefined && existing.at <= at) return;
      if (existing !== undefined) clearTimeout(existing.timer);
      const timer = setTimeout(() => {
        this.#timers.delete(key);
        this.add(key);
      }, delaySeconds * 1000);
      timer.unref?.();
      this.#timers.set(key, { at, timer });
      return;
    }
    if (this.#running.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#ready.push(key);
    this.#pump();
  }

  /** Keys waiting or running (not those only scheduled for later). */
  get depth(): number {
    return this.#queued.size + this.#running.size;
  }

  /** Drops pending and scheduled keys and waits for running reconciles to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#ready.length = 0;
    this.#queued.clear();
    this.#dirty.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  #pump(): void {
    if (!this.#started || this.#stopped) return;
    while (this.#running.size < this.#concurrency && this.#ready.length > 0) {
      const key = this.#ready.shift() as string;
      this.#queued.delete(key);
      this.#running.add(key);
      const run = this.#run(key);
      this.#inFlight.add(run);
      void run.finally(() => this.#inFlight.delete(run));
    }
  }

  async #run(key: string): Promise<void> {
    let requeue: number | undefined;
    try {
      const result = await this.#o.reconcile(key);
      this.#failures.delete(key);
      requeue = result?.requeueAfter;
    } catch (err) {
      const n = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, n);
      const base = this.#o.backoffBaseSeconds ?? 0.005;
      requeue = Math.min(this.#o.backoffMaxSeconds ?? 1000, base * 2 ** (n - 1));
      this.#o.onError?.(key, err, requeue);
    } finally {
      this.#running.delete(key);
    }
    if (this.#dirty.delete(key)) this.add(key);
    else if (requeue !== undefined) this.add(key, Math.max(requeue, 0.001));
    this.#pump();
  }
}
