/**
 * Seeded random numbers (pure-rand's xoroshiro128+). Each use draws from its own stream, named by
 * a label (`event:3`, `interruptions`), so adding an event to a scenario does not change what
 * the others draw, and the same seed always gives the same run.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** A stream of random numbers. */
export class SeededRandom {
  readonly #rng: ReturnType<typeof xoroshiro128plus>;

  /** The stream `label` of `seed` (an integer 0..2^32-1). */
  constructor(seed: number, label: string) {
    this.#rng = xoroshiro128plus((seed ^ fnv1a(label)) >>> 0);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return uniformFloat64(this.#rng);
  }

  /** Uniform integer in [0, n); n ≥ 1. */
  index(n: number): number {
    return Math.min(n - 1, Math.floor(this.next() * n));
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
}

/** 32-bit FNV-1a of a string. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
