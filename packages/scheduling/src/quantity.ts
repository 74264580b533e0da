/**
 * Kubernetes resource quantities ("100m", "1.5Gi", "1e3"), parsed and printed with the semantics
 * of k8s.io/apimachinery `resource.Quantity`, held exactly as a BigInt count of nano-units.
 *
 * Why nano-units: apimachinery rounds every parsed value up (away from zero) to a multiple of
 * 10^-9, so after parsing a quantity is always an integer number of nanos and BigInt holds it with
 * no loss and no floats.
 */

/** How a quantity prints: decimal SI suffixes (`m`, `k`, `M`), binary (`Ki`, `Mi`), or `e<n>`. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/**
 * An exact quantity. `nanos` is the value in units of 10^-9 (so "1" is 1_000_000_000n and "100m"
 * is 100_000_000n); `format` is the suffix family it was written in, which `formatQuantity` keeps.
 */
export interface Quantity {
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

/**
 * Thrown by `parseQuantity` for text apimachinery would reject. `input` is the offending text and
 * `rule` the grammar rule it broke; the message names both.
 */
export class QuantityError extends Error {
  readonly input: string;
  readonly rule: string;

  constructor(input: string, rule: string) {
    super(`invalid quantity ${JSON.stringify(input)}: ${rule}`);
    this.name = 'QuantityError';
    this.input = input;
    this.rule = rule;
  }
}

const NANO = 1_000_000_000n;
/** apimachinery caps the magnitude of a parsed quantity at MaxInt64 units. */
const MAX_NANOS = 9_223_372_036_854_775_807n * NANO;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Readonly<Record<string, number>> = {
  Ki: 10,
  Mi: 20,
  Gi: 30,
  Ti: 40,
  Pi: 50,
  Ei: 60,
};
const DECIMAL_SUFFIX_BY_EXPONENT = new Map<number, string>(
  Object.entries(DECIMAL_SUFFIXES).map(([suffix, exponent]) => [exponent, suffix]),
);
const BINARY_SUFFIX_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
/** Characters apimachinery's scanner treats as the start of a suffix. */
const SUFFIX_LETTERS = 'eEinumkKMGTP';

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * Parses a Kubernetes quantity, accepting exactly what `resource.ParseQuantity` accepts (after the
 * whitespace trim that JSON/YAML decoding applies): an optional sign, digits with an optional
 * fraction (`0.5`, `.5`, `1.`), then one suffix: decimal SI (`n u m k M G T P E`, or none),
 * binary SI (`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-3`, `e+6`). JS numbers are
 * accepted through their decimal string (`1.5` → "1.5", `1e21` → "1e+21").
 *
 * Rounding and limits follow apimachinery: values finer than 10^-9 round up away from zero
 * ("3.001n" → 4n, "0.5e-9" → 1n); a binary-format value strictly between 0 and 1 switches to
 * DecimalSI. Deliberate differences: magnitudes above 2^63−1 units are capped in every case
 * (apimachinery's int64 fast path lets e.g. "12E" through uncapped); and like apimachinery, a
 * number with no digits ("-", ".", "Gi") parses as zero — we keep that quirk so a pod the API
 * server accepted means the same thing here.
 *
 * @throws QuantityError naming the input and the broken rule (empty text, unknown suffix such as
 *   "1K" or "1ki", stray characters such as "1.1.M", exponent without digits such as "1e").
 */
export function parseQuantity(input: string | number): Quantity {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) {
      throw new QuantityError(String(input), 'a quantity must be a finite number');
    }
    text = String(input);
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    throw new QuantityError(String(input), 'a quantity must be a string or a number');
  }
  if (text.length === 0) {
    throw new QuantityError(String(input), 'a quantity must not be empty');
  }

  let pos = 0;
  let negative = false;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    pos++;
  }
  const intStart = pos;
  while (isDigit(text[pos])) pos++;
  const intDigits = text.slice(intStart, pos);
  let fracDigits = '';
  if (text[pos] === '.') {
    pos++;
    const fracStart = pos;
    while (isDigit(text[pos])) pos++;
    fracDigits = text.slice(fracStart, pos);
  }
  const suffix = text.slice(pos);
  checkSuffixShape(text, suffix);

  let base: 2 | 10;
  let exponent: number;
  let format: QuantityFormat;
  const decimal = DECIMAL_SUFFIXES[suffix];
  const binary = BINARY_SUFFIXES[suffix];
  if (decimal !== undefined) {
    base = 10;
    exponent = decimal;
    format = 'DecimalSI';
  } else if (binary !== undefined) {
    base = 2;
    exponent = binary;
    format = 'BinarySI';
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) {
      throw new QuantityError(
        text,
        `exponent ${JSON.stringify(suffix)} must be e or E followed by an integer`,
      );
    }
    const parsed = BigInt(digits);
    if (parsed > 9_223_372_036_854_775_807n || parsed < -9_223_372_036_854_775_808n) {
      throw new QuantityError(text, `exponent ${JSON.stringify(suffix)} is out of range`);
    }
    base = 10;
    // Inexact only far beyond ±2^53, where the value saturates below anyway.
    exponent = Number(parsed);
    format = 'DecimalExponent';
  } else {
    throw new QuantityError(
      text,
      `unknown suffix ${JSON.stringify(suffix)} (allowed: n u m k M G T P E, Ki Mi Gi Ti Pi Ei, e<integer>)`,
    );
  }

  const mantissa = BigInt((intDigits + fracDigits).replace(/^0+/, '') || '0');
  let nanos: bigint;
  if (mantissa === 0n) {
    nanos = 0n;
  } else {
    // value = mantissa × 10^(decimalExponent) × 2^(binaryExponent); in nanos, decimalExponent + 9.
    const tenPower = (base === 10 ? exponent : 0) - fracDigits.length + 9;
    const twoPower = base === 2 ? exponent : 0;
    const mantissaDigits = mantissa.toString().length;
    if (mantissaDigits + tenPower > 40) {
      nanos = MAX_NANOS; // at least 10^39 nanos: far beyond the cap
    } else if (mantissaDigits + tenPower < -40) {
      nanos = 1n; // below 10^-40 nanos (times at most 2^60): rounds up to one nano
    } else if (tenPower >= 0) {
      nanos = (mantissa << BigInt(twoPower)) * 10n ** BigInt(tenPower);
    } else {
      const scaled = mantissa << BigInt(twoPower);
      const divisor = 10n ** BigInt(-tenPower);
      // Sub-nano precision rounds up: a non-zero request never becomes zero.
      nanos = scaled / divisor + (scaled % divisor === 0n ? 0n : 1n);
    }
    if (nanos > MAX_NANOS) nanos = MAX_NANOS;
  }
  if (format === 'BinarySI' && nanos > 0n && nanos < NANO) format = 'DecimalSI';
  return { nanos: negative ? -nanos : nanos, format };
}

/** Rejects suffix text that apimachinery's scanner refuses before looking the suffix up. */
function checkSuffixShape(text: string, suffix: string): void {
  let i = 0;
  while (i < suffix.length && SUFFIX_LETTERS.includes(suffix[i] as string)) i++;
  if (suffix[i] === '+' || suffix[i] === '-') i++;
  while (isDigit(suffix[i])) i++;
  if (i < suffix.length) {
    throw new QuantityError(
      text,
      `unexpected character ${JSON.stringify(suffix[i])}: expected [+-]digits[.digits] followed by a suffix`,
    );
  }
}

/** Rounds `nanos / 10^(9-digits)` away from zero, as apimachinery's ScaledValue does for int64 amounts. */
function scaledAwayFromZero(nanos: bigint, divisor: bigint): bigint {
  const q = nanos / divisor;
  if (nanos % divisor === 0n) return q;
  return nanos > 0n ? q + 1n : q - 1n;
}

function toSafeNumber(value: bigint, what: string, q: Quantity): number {
  if (value > MAX_SAFE || value < -MAX_SAFE) {
    throw new RangeError(
      `quantity ${formatQuantity(q)} has a ${what} of ${value}, beyond Number.MAX_SAFE_INTEGER`,
    );
  }
  return Number(value);
}

/**
 * The quantity in thousandths, rounded up away from zero — Kubernetes `MilliValue()` (so "1.5" →
 * 1500, "0.1m" → 1, "1Gi" → 1073741824000). Used for cpu millicores.
 * @throws RangeError if the result exceeds Number.MAX_SAFE_INTEGER in magnitude.
 */
export function quantityToMilli(q: Quantity): number {
  return toSafeNumber(scaledAwayFromZero(q.nanos, 1_000_000n), 'milli-value', q);
}

/**
 * The quantity in whole units, rounded up away from zero — Kubernetes `Value()` (so "100m" → 1,
 * "1Ki" → 1024, "129e6" → 129000000). Used for bytes, pods and extended resources.
 * @throws RangeError if the result exceeds Number.MAX_SAFE_INTEGER in magnitude.
 */
export function quantityToValue(q: Quantity): number {
  return toSafeNumber(scaledAwayFromZero(q.nanos, NANO), 'value', q);
}

/**
 * Prints a quantity in Kubernetes canonical form (`Quantity.String()`): no fraction digits, the
 * largest suffix that loses nothing, sign only when negative, "0" for zero. The format family is
 * kept: BinarySI prints with Ki…Ei when the value is a whole number of at least 1024 in
 * magnitude ("1.5Gi" → "1536Mi", "1025Ki" → "1025Ki"), else as DecimalSI ("100.035Ki" →
 * "102435840m", "0.9Gi" → "966367641600m"); DecimalSI uses n…E with an exponent that is a
 * multiple of three ("1.5" → "1500m", "0.1" → "100m", "1000" → "1k"); DecimalExponent uses e<n>
 * ("129e6", "1.5e3" → "1500").
 * apimachinery may echo an input that is already canonical verbatim; this always recomputes.
 */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const negative = q.nanos < 0n;
  const magnitude = negative ? -q.nanos : q.nanos;
  const sign = negative ? '-' : '';

  if (q.format === 'BinarySI' && magnitude >= 1024n * NANO && magnitude % NANO === 0n) {
    let units = magnitude / NANO;
    let power = 0;
    while (power < BINARY_SUFFIX_BY_POWER.length - 1 && units >= 1024n && units % 1024n === 0n) {
      units /= 1024n;
      power++;
    }
    return `${sign}${units}${BINARY_SUFFIX_BY_POWER[power]}`;
  }

  // Move factors of ten into the exponent, then back down to a multiple of three.
  let mantissa = magnitude;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const excess = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(excess);
  exponent -= excess;

  if (q.format === 'DecimalExponent') {
    return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  }
  const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
  // Only reachable above the exa range, which parsing caps; print an exponent rather than lose it.
  return `${sign}${mantissa}${suffix ?? `e${exponent}`}`;
}

/** Orders two quantities by numeric value: negative if a < b, 0 if equal, positive if a > b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}
