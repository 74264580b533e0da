/**
 * A map keyed by row masks (catalog bitsets) without building a string per lookup: entries are
 * bucketed by a hash of the words and matched word by word. Thousands of node claims share a
 * few hundred distinct masks, and `mask.join(',')` keys were a measurable share of a solve's
 * allocations.
 */
export class MaskMap<V> {
  private readonly buckets = new Map<number, { mask: Uint32Array; value: V }[]>();

  /** The value stored for a mask with exactly these words, if any. */
  get(mask: Uint32Array): V | undefined {
    const bucket = this.buckets.get(hashMask(mask));
    if (bucket === undefined) return undefined;
    for (let i = 0; i < bucket.length; i++) {
      const e = bucket[i] as { mask: Uint32Array; value: V };
      if (sameWords(e.mask, mask)) return e.value;
    }
    return undefined;
  }

  /** Stores `value` for a copy of `mask` (the caller may reuse its array). */
  set(mask: Uint32Array, value: V): void {
    const h = hashMask(mask);
    let bucket = this.buckets.get(h);
    if (bucket === undefined) {
      bucket = [];
      this.buckets.set(h, bucket);
    }
    for (const e of bucket) {
      if (sameWords(e.mask, mask)) {
        e.value = value;
        return;
      }
    }
    bucket.push({ mask: mask.slice(), value });
  }
}

// FNV-1a over the words, as a small integer key.
function hashMask(mask: Uint32Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < mask.length; i++) h = Math.imul(h ^ (mask[i] as number), 0x01000193);
  return h | 0;
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
