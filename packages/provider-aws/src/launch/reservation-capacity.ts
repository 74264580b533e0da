/**
 * How many more instances each capacity reservation can take, as this controller knows it
 * (upstream's capacity reservation provider keeps the same in memory): the count EC2 reported at
 * the last DescribeCapacityReservations, minus the instances launched into it since, or 0 once a
 * launch into it failed for capacity or its interruption was announced, until the next refresh.
 */

/** The available-instance counts of capacity reservations, by reservation ID. */
export class ReservationCapacity {
  readonly #remaining = new Map<string, number>();
  /** Bumped on every change, so offering caches know when to rebuild. */
  seq = 0;

  /**
   * Takes the counts EC2 just reported (`availableInstanceCount`, ≥ 0) for these reservations,
   * replacing what launches and marks had changed: the refresh that ends their effect.
   */
  observe(reservations: readonly { id: string; availableInstanceCount: number }[]): void {
    for (const r of reservations) {
      const n = Math.max(0, r.availableInstanceCount);
      if (this.#remaining.get(r.id) !== n) this.seq++;
      this.#remaining.set(r.id, n);
    }
  }

  /** Instances reservation `id` can still take; 0 for one never observed. */
  remaining(id: string): number {
    return this.#remaining.get(id) ?? 0;
  }

  /** Counts one instance launched into reservation `id` (never below 0). */
  markLaunched(id: string): void {
    const n = this.remaining(id);
    if (n > 0) {
      this.#remaining.set(id, n - 1);
      this.seq++;
    }
  }

  /** No more launches into reservation `id` until its next refresh (a capacity error, an interruption). */
  markUnavailable(id: string): void {
    if (this.remaining(id) !== 0) this.seq++;
    this.#remaining.set(id, 0);
  }
}
