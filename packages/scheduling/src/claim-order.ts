/**
 * The order in-flight node claims are tried in: fewest pods first, then
 * lowest id — the same key the solver's `findClaim` walks, kept on the TypeScript side for pods
 * whose hostname constraints rule most claims out before any numeric check.
 */

function lowerBound(list: readonly number[], id: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Claim ids bucketed by pod count, each bucket ascending. */
export class ClaimOrder {
  private readonly buckets: number[][] = [];

  /** Adds a claim with `pods` pods. */
  add(id: number, pods: number): void {
    const bucket = (this.buckets[pods] ??= []);
    // shifted by hand: splice would allocate its (empty) result on every call
    const at = lowerBound(bucket, id);
    bucket.push(id);
    for (let j = bucket.length - 1; j > at; j--) bucket[j] = bucket[j - 1] as number;
    bucket[at] = id;
  }

  /** Removes a claim that has `pods` pods. */
  remove(id: number, pods: number): void {
    const bucket = this.buckets[pods];
    if (bucket !== undefined) {
      const i = lowerBound(bucket, id);
      if (bucket[i] === id) {
        for (let j = i; j < bucket.length - 1; j++) bucket[j] = bucket[j + 1] as number;
        bucket.pop();
      }
    }
  }

  /** Moves a claim from `pods` to `pods + 1`. */
  increment(id: number, pods: number): void {
    this.remove(id, pods);
    this.add(id, pods + 1);
  }

  /** Visits claims in order until `visit` returns true; returns that claim's id, or -1. */
  find(visit: (id: number) => boolean): number {
    for (const bucket of this.buckets) {
      if (bucket === undefined) continue;
      for (let i = 0; i < bucket.length; i++) {
        const id = bucket[i] as number;
        if (visit(id)) return id;
      }
    }
    return -1;
  }
}

/**
 * In-flight claims of one topology key, split by the domains each claim can still take: one
 * ordered list per domain (a claim narrowed to several domains sits in each) and one for claims
 * with no finite set yet. A pod whose topology allows only a few domains walks just those lists
 * instead of every claim — zonal affinity on thousands of claims pinned to other zones, say.
 */
export class ClaimDomainIndex {
  private readonly byDomain = new Map<string, ClaimOrder>();
  private readonly undecided = new ClaimOrder();
  /** Per claim id: the domains it was recorded with and the lists holding it. */
  private readonly memberOf: (
    { domains: readonly string[] | undefined; orders: ClaimOrder[] } | undefined
  )[] = [];

  /**
   * Records claim `id` with `pods` pods and `domains` as its requirement's finite values
   * (undefined when the requirement is a complement), replacing what was recorded before
   * (when the claim had `previousPods` pods).
   */
  update(
    id: number,
    previousPods: number,
    pods: number,
    domains: readonly string[] | undefined,
  ): void {
    const member = this.memberOf[id];
    if (member !== undefined) {
      for (const order of member.orders) order.remove(id, previousPods);
      // the same domains array (requirements share their value lists): the same lists again
      if (member.domains === domains) {
        for (const order of member.orders) order.add(id, pods);
        return;
      }
    }
    const orders = domains === undefined ? [this.undecided] : domains.map((d) => this.order(d));
    for (const order of orders) order.add(id, pods);
    if (member === undefined) this.memberOf[id] = { domains, orders };
    else {
      member.domains = domains;
      member.orders = orders;
    }
  }

  /** The lists holding every claim that may take one of `domains`. */
  ordersFor(domains: readonly string[]): ClaimOrder[] {
    const out = [this.undecided];
    for (const d of domains) {
      const order = this.byDomain.get(d);
      if (order !== undefined) out.push(order);
    }
    return out;
  }

  private order(domain: string): ClaimOrder {
    let order = this.byDomain.get(domain);
    if (order === undefined) {
      order = new ClaimOrder();
      this.byDomain.set(domain, order);
    }
    return order;
  }
}
