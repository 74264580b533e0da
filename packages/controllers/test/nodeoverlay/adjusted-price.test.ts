import { describe, expect, it } from 'vitest';
import { adjustedPrice } from '../../src/index.js';

describe('adjustedPrice (upstream AdjustedPrice)', () => {
  it('an unsigned price replaces the offering price', () => {
    expect(adjustedPrice(0.5, '0.42')).toBe(0.42);
    expect(adjustedPrice(0.5, '0')).toBe(0);
  });

  it('a signed amount moves it by that many USD/hour', () => {
    expect(adjustedPrice(0.5, '+0.25')).toBeCloseTo(0.75, 12);
    expect(adjustedPrice(0.5, '-0.2')).toBeCloseTo(0.3, 12);
  });

  it('a percentage scales it', () => {
    expect(adjustedPrice(0.5, '+10%')).toBeCloseTo(0.55, 12);
    expect(adjustedPrice(0.5, '-50%')).toBeCloseTo(0.25, 12);
    expect(adjustedPrice(0.5, '-100%')).toBe(0);
  });

  it('never goes below zero', () => {
    expect(adjustedPrice(0.5, '-1')).toBe(0);
  });

  it('an empty change keeps the price; a malformed one is refused by name', () => {
    expect(adjustedPrice(0.5, '')).toBe(0.5);
    expect(() => adjustedPrice(0.5, '+ten%')).toThrow(/"\+ten%" is not a number/);
  });
});
