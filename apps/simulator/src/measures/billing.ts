/**
 * What the cloud bills: every instance from its launch until it is gone, at its offering's
 * USD/hour, integrated exactly (per instance, not per tick).
 */
import type { SimCloudProvider, SimInstance } from '@karpenter-ts/cloudprovider';

/** An instance that has been launched, and when it went away (undefined while running). */
export interface BilledInstance {
  readonly instance: SimInstance;
  endedAt: number | undefined;
}

/** Launches and terminations seen since the last {@link Billing.observe}. */
export interface BillingChanges {
  readonly launched: readonly SimInstance[];
  readonly terminated: readonly SimInstance[];
}

/** See the module comment. */
export class Billing {
  readonly #running = new Map<string, BilledInstance>();
  /** USD of instances that are gone. */
  #closed = 0;

  constructor(private readonly cloud: SimCloudProvider) {}

  /**
   * Compares the cloud's instances with the last look: new ones started at their launch time,
   * vanished ones ended at `nowMs` (the time of the tick or action that removed them).
   */
  observe(nowMs: number): BillingChanges {
    const current = this.cloud.instances();
    const ids = new Set(current.map((i) => i.providerID));
    const launched: SimInstance[] = [];
    const terminated: SimInstance[] = [];
    for (const i of current) {
      if (this.#running.has(i.providerID)) continue;
      this.#running.set(i.providerID, { instance: i, endedAt: undefined });
      launched.push(i);
    }
    for (const [id, b] of this.#running) {
      if (ids.has(id)) continue;
      b.endedAt = nowMs;
      this.#closed += usd(b.instance.price, nowMs - b.instance.launchedAt);
      this.#running.delete(id);
      terminated.push(b.instance);
    }
    return { launched, terminated };
  }

  /** Instances running now, in launch order. */
  running(): SimInstance[] {
    return [...this.#running.values()].map((b) => b.instance);
  }

  /** USD per hour of the running instances. */
  ratePerHour(): number {
    let rate = 0;
    for (const b of this.#running.values()) rate += b.instance.price;
    return rate;
  }

  /** USD spent from the start until `atMs` (≥ the last observe). */
  spentUntil(atMs: number): number {
    let total = this.#closed;
    for (const b of this.#running.values())
      total += usd(b.instance.price, Math.max(0, atMs - b.instance.launchedAt));
    return total;
  }
}

function usd(pricePerHour: number, ms: number): number {
  return (pricePerHour * ms) / 3_600_000;
}
