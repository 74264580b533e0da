import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QuantityError,
  quantityToMilli,
  quantityToValue,
  type Quantity,
  type QuantityFormat,
} from '../src/index.js';

const NANO = 1_000_000_000n;
const MAX_NANOS = 9_223_372_036_854_775_807n * NANO;

describe('parseQuantity: exact values of Kubernetes examples', () => {
  // [input, exact value in nanos, format, canonical string]
  const table: [string | number, bigint, QuantityFormat, string][] = [
    ['100m', 100_000_000n, 'DecimalSI', '100m'],
    ['1.5Gi', 1_610_612_736n * NANO, 'BinarySI', '1536Mi'],
    ['1e3', 1000n * NANO, 'DecimalExponent', '1e3'],
    ['0.1', 100_000_000n, 'DecimalSI', '100m'],
    ['129e6', 129_000_000n * NANO, 'DecimalExponent', '129e6'],
    ['123Mi', 128_974_848n * NANO, 'BinarySI', '123Mi'],
    ['0', 0n, 'DecimalSI', '0'],
    ['0Mi', 0n, 'BinarySI', '0'],
    ['1', NANO, 'DecimalSI', '1'],
    ['1.5', 1_500_000_000n, 'DecimalSI', '1500m'],
    ['5n', 5n, 'DecimalSI', '5n'],
    ['4u', 4000n, 'DecimalSI', '4u'],
    ['8k', 8000n * NANO, 'DecimalSI', '8k'],
    ['50k', 50_000n * NANO, 'DecimalSI', '50k'],
    ['1000k', 1_000_000n * NANO, 'DecimalSI', '1M'],
    ['7M', 7_000_000n * NANO, 'DecimalSI', '7M'],
    ['6G', 6_000_000_000n * NANO, 'DecimalSI', '6G'],
    ['5T', 5n * 10n ** 12n * NANO, 'DecimalSI', '5T'],
    ['2P', 2n * 10n ** 15n * NANO, 'DecimalSI', '2P'],
    ['1E', 10n ** 18n * NANO, 'DecimalSI', '1E'],
    ['1Ki', 1024n * NANO, 'BinarySI', '1Ki'],
    ['1024Ki', 1_048_576n * NANO, 'BinarySI', '1Mi'],
    ['1025Ki', 1_049_600n * NANO, 'BinarySI', '1025Ki'],
    ['3Ei', 3n * 2n ** 60n * NANO, 'BinarySI', '3Ei'],
    ['1E-3', 1_000_000n, 'DecimalExponent', '1e-3'],
    ['1e9', 10n ** 9n * NANO, 'DecimalExponent', '1e9'],
    ['1.3E+6', 1_300_000n * NANO, 'DecimalExponent', '1300e3'],
    ['1.5e3', 1500n * NANO, 'DecimalExponent', '1500'],
    ['0.5e-1', 50_000_000n, 'DecimalExponent', '50e-3'],
    ['100.035k', 100_035n * NANO, 'DecimalSI', '100035'],
    ['8.1k', 8100n * NANO, 'DecimalSI', '8100'],
    ['0.0005k', 500_000_000n, 'DecimalSI', '500m'],
    ['.001', 1_000_000n, 'DecimalSI', '1m'],
    ['.5', 500_000_000n, 'DecimalSI', '500m'],
    ['.0001k', 100_000_000n, 'DecimalSI', '100m'],
    ['1.', NANO, 'DecimalSI', '1'],
    ['1.G', 10n ** 9n * NANO, 'DecimalSI', '1G'],
    ['+5', 5n * NANO, 'DecimalSI', '5'],
    ['-100m', -100_000_000n, 'DecimalSI', '-100m'],
    ['-1.5Gi', -1_610_612_736n * NANO, 'BinarySI', '-1536Mi'],
    ['007', 7n * NANO, 'DecimalSI', '7'],
    // fractional binary amounts: exact, printed in decimal when not a whole number
    ['0.5Mi', 524_288n * NANO, 'BinarySI', '512Ki'],
    ['100.035Ki', 102_435_840_000_000n, 'BinarySI', '102435840m'],
    ['0.9Gi', 966_367_641_600_000_000n, 'BinarySI', '966367641600m'],
    ['1000', 1000n * NANO, 'DecimalSI', '1k'],
    // sub-nano precision rounds up (away from zero)
    ['3.001n', 4n, 'DecimalSI', '4n'],
    ['1.1E-9', 2n, 'DecimalExponent', '2e-9'],
    ['0.0000000001', 1n, 'DecimalSI', '1n'],
    ['0.00000012345', 124n, 'DecimalSI', '124n'],
    ['-0.0000000001', -1n, 'DecimalSI', '-1n'],
    ['0.000000000001Ki', 2n, 'DecimalSI', '2n'],
    // magnitudes above MaxInt64 units are capped
    ['9Ei', MAX_NANOS, 'BinarySI', '9223372036854775807'],
    ['1e400', MAX_NANOS, 'DecimalExponent', '9223372036854775807'],
    ['-1e400', -MAX_NANOS, 'DecimalExponent', '-9223372036854775807'],
    ['1e-400', 1n, 'DecimalExponent', '1e-9'],
    ['1e-9223372036854775808', 1n, 'DecimalExponent', '1e-9'],
    ['1e9223372036854775807', MAX_NANOS, 'DecimalExponent', '9223372036854775807'],
    // a long mantissa with a large negative exponent is still exact
    [`1${'0'.repeat(500)}e-497`, 1000n * NANO, 'DecimalExponent', '1e3'],
    [`0.${'0'.repeat(500)}15e501`, 1_500_000_000n, 'DecimalExponent', '1500e-3'],
    // whitespace around the value is trimmed, as JSON/YAML decoding does
    [' 2Gi ', 2n * 2n ** 30n * NANO, 'BinarySI', '2Gi'],
    // numbers from YAML
    [2, 2n * NANO, 'DecimalSI', '2'],
    [0.5, 500_000_000n, 'DecimalSI', '500m'],
    [1e18, 10n ** 18n * NANO, 'DecimalSI', '1E'],
    [1.5e-7, 150n, 'DecimalExponent', '150e-9'],
    // apimachinery reads a number with no digits as zero; so do we
    ['-', 0n, 'DecimalSI', '0'],
    ['.', 0n, 'DecimalSI', '0'],
    ['Gi', 0n, 'BinarySI', '0'],
  ];

  it.each(table)('%j is %s nanos (%s), printed %s', (input, nanos, format, printed) => {
    const q = parseQuantity(input);
    expect(q.nanos).toBe(nanos);
    expect(q.format).toBe(format);
    expect(formatQuantity(q)).toBe(printed);
  });
});

describe('parseQuantity: rejects what the apiserver rejects', () => {
  const invalid: [string | number, RegExp][] = [
    ['', /must not be empty/],
    ['   ', /must not be empty/],
    ['1.1.M', /unexpected character "\."/],
    ['1+1.0M', /unexpected character "\."/],
    ['0.1mi', /unknown suffix "mi"/],
    ['0.1am', /unexpected character "a"/],
    ['aoeu', /unexpected character "a"/],
    ['.5i', /unknown suffix "i"/],
    ['1i', /unknown suffix "i"/],
    ['-3.01i', /unknown suffix "i"/],
    ['-3.01e-', /exponent "e-" must be e or E followed by an integer/],
    ['1e', /unknown suffix "e"/],
    ['1e1.5', /unexpected character "\."/],
    ['1K', /unknown suffix "K"/],
    ['1ki', /unknown suffix "ki"/],
    ['1KiB', /unexpected character "B"/],
    ['1 Gi', /unexpected character " "/],
    ['1e99999999999999999999', /exponent .* out of range/],
    [Number.NaN, /finite number/],
    [Number.POSITIVE_INFINITY, /finite number/],
  ];

  it.each(invalid)('%j throws QuantityError matching %s', (input, message) => {
    let caught: unknown;
    try {
      parseQuantity(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(QuantityError);
    expect((caught as QuantityError).message).toMatch(message);
    const text = String(input).trim() || String(input);
    expect((caught as QuantityError).message).toContain(`invalid quantity ${JSON.stringify(text)}`);
    expect((caught as QuantityError).rule.length).toBeGreaterThan(0);
  });
});

describe('quantityToMilli and quantityToValue round up like MilliValue() and Value()', () => {
  const table: [string, number, number][] = [
    ['100m', 100, 1],
    ['1.5', 1500, 2],
    ['0.1m', 1, 1],
    ['1n', 1, 1],
    ['2', 2000, 2],
    ['1Gi', 1_073_741_824_000, 1_073_741_824],
    ['129e6', 129_000_000_000, 129_000_000],
    ['0', 0, 0],
    ['-1.5m', -2, -1],
    ['-2', -2000, -2],
  ];
  it.each(table)('%s → %d milli, %d units', (input, milli, value) => {
    const q = parseQuantity(input);
    expect(quantityToMilli(q)).toBe(milli);
    expect(quantityToValue(q)).toBe(value);
  });

  it('throws RangeError beyond Number.MAX_SAFE_INTEGER', () => {
    expect(() => quantityToValue(parseQuantity('9007199254740992'))).toThrow(RangeError);
    expect(quantityToValue(parseQuantity('9007199254740991'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => quantityToMilli(parseQuantity('9007199254741'))).toThrow(/MAX_SAFE_INTEGER/);
    expect(() => quantityToValue(parseQuantity('-9Ei'))).toThrow(RangeError);
  });
});

describe('quantity properties', () => {
  const formats: QuantityFormat[] = ['DecimalSI', 'BinarySI', 'DecimalExponent'];
  const arbQuantity: fc.Arbitrary<Quantity> = fc.record({
    nanos: fc.oneof(
      fc.bigInt(-MAX_NANOS, MAX_NANOS),
      fc.bigInt(-(10n ** 15n), 10n ** 15n),
      fc.bigInt(-1000n, 1000n).map((n) => n * NANO),
      fc.bigInt(-4096n, 4096n).map((n) => n * 1024n * 1024n * NANO),
    ),
    format: fc.constantFrom(...formats),
  });

  it('parse(format(q)) has the value of q, and printing the parsed text is idempotent', () => {
    fc.assert(
      fc.property(arbQuantity, (q) => {
        const printed = formatQuantity(q);
        const reparsed = parseQuantity(printed);
        expect(reparsed.nanos).toBe(q.nanos);
        // The text, not q, fixes the format from here on (a bare integer is DecimalSI).
        const canonical = formatQuantity(reparsed);
        expect(formatQuantity(parseQuantity(canonical))).toBe(canonical);
      }),
    );
  });

  it('prints a BinarySI integer that is no multiple of 1024 bare, which re-parses as DecimalSI (as apimachinery)', () => {
    // fast-check's counterexample to the earlier "print(parse(print(q))) == print(q)" property.
    const q: Quantity = { nanos: -125_000n * NANO, format: 'BinarySI' };
    expect(formatQuantity(q)).toBe('-125000');
    expect(formatQuantity(parseQuantity('-125000'))).toBe('-125k');
  });

  it('a decimal written with nine fraction digits parses to exactly that many nanos', () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 20n), 10n ** 20n), (nanos) => {
        const sign = nanos < 0n ? '-' : '';
        const abs = nanos < 0n ? -nanos : nanos;
        const text = `${sign}${abs / NANO}.${(abs % NANO).toString().padStart(9, '0')}`;
        expect(parseQuantity(text).nanos).toBe(nanos);
      }),
    );
  });

  const multipliers: Record<string, bigint> = {
    n: 1n,
    u: 1000n,
    m: 1_000_000n,
    '': NANO,
    k: 1000n * NANO,
    M: 10n ** 6n * NANO,
    G: 10n ** 9n * NANO,
    Ki: 1024n * NANO,
    Mi: 1024n ** 2n * NANO,
    Gi: 1024n ** 3n * NANO,
    Ti: 1024n ** 4n * NANO,
    e2: 100n * NANO,
    'e-2': 10_000_000n,
  };

  it('an integer with a suffix is the integer times the suffix multiplier', () => {
    fc.assert(
      fc.property(
        fc.bigInt(-(10n ** 6n), 10n ** 6n),
        fc.constantFrom(...Object.keys(multipliers)),
        (n, suffix) => {
          expect(parseQuantity(`${n}${suffix}`).nanos).toBe(n * (multipliers[suffix] as bigint));
        },
      ),
    );
  });

  it('quantities order as their numeric values, whatever their suffixes', () => {
    const arbText = fc
      .tuple(fc.bigInt(0n, 10n ** 6n), fc.constantFrom(...Object.keys(multipliers)))
      .map(([n, s]) => ({ text: `${n}${s}`, nanos: n * (multipliers[s] as bigint) }));
    fc.assert(
      fc.property(arbText, arbText, (a, b) => {
        const expected = a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
        expect(Math.sign(compareQuantities(parseQuantity(a.text), parseQuantity(b.text)))).toBe(
          expected,
        );
      }),
    );
  });

  it('never throws anything but QuantityError on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.+-eEinumkKMGTPx ') }), (s) => {
        try {
          parseQuantity(s);
        } catch (err) {
          expect(err).toBeInstanceOf(QuantityError);
        }
      }),
    );
  });
});
