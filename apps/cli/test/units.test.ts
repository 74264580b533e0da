import { describe, expect, it } from 'vitest';
import { formatUsd, roundUsd } from '../src/output/units.js';

describe('formatUsd', () => {
  it('prints a modelled spot price as its total does: the same value, the same text', () => {
    const spot = 0.0765 * 0.7; // 0.053549999… in binary
    expect(formatUsd(spot)).toBe(formatUsd(roundUsd(spot)));
    expect(formatUsd(spot)).toBe('$0.0536');
  });

  it('prints 4 decimals', () => {
    expect(formatUsd(0.096)).toBe('$0.0960');
  });
});
