/**
 * The order in-flight node claims are tried in (karpenter-core.md 2.4): fewest pods first, then
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
    bucket.splice(lowerBound(bucket, id), 0, id);
  }

  /** Moves a claim from `pods` to `pods + 1`. */
  increment(id: number, pods: number): void {
    const bucket = this.buckets[pods];
    if (bucket !== undefined) {
      const i = lowerBound(bucket, id);
      if (bucket[i] === id) bucket.splice(i, 1);
    }
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
