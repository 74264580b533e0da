/**
 * The price a NodeOverlay gives an offering (upstream `cloudprovider.AdjustedPrice`): `price`
 * replaces it, `priceAdjustment` moves it by an absolute amount
 * (`+0.1`, `-0.1`) or a percentage (`+10%`, `-10%`, `-100%`); the result is never below zero.
 */

/**
 * Applies `change` to `price` (USD/hour). `change` is the overlay's `price` (a decimal with no
 * sign: the new price) or its `priceAdjustment` (signed: `±x` USD/hour or `±x%`); an empty
 * string leaves the price as it is. Results below zero become zero.
 * @throws RangeError when `change` is not a number in one of those forms (the CRD's rules admit
 *   only those, so this means an object that bypassed validation).
 */
export function adjustedPrice(price: number, change: string): number {
  if (change === '') return price;
  const signed = change.startsWith('+') || change.startsWith('-');
  const percent = change.endsWith('%');
  const text = percent ? change.slice(0, -1) : change;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) {
    throw new RangeError(`NodeOverlay price change ${JSON.stringify(change)} is not a number`);
  }
  if (!signed) return Math.max(0, value);
  const adjusted = percent ? price * (1 + value / 100) : price + value;
  return Math.max(0, adjusted);
}

/** The overlay's price change: `spec.price`, else `spec.priceAdjustment`, else undefined. */
export function priceChange(spec: {
  readonly price?: string;
  readonly priceAdjustment?: string;
}): string | undefined {
  return spec.price ?? spec.priceAdjustment;
}
