/**
 * Formatting of canonical quantities for people: cpu in cores, memory in GiB, prices in USD.
 */

/** Millicores as cores with up to 2 decimals: `1500` → `1.5`, `250` → `0.25`. */
export function formatCores(millicores: number): string {
  return trimZeros((millicores / 1000).toFixed(2));
}

/** Bytes as GiB with up to 2 decimals and the unit: `1610612736` → `1.5Gi`. */
export function formatGiB(bytes: number): string {
  return `${trimZeros((bytes / 2 ** 30).toFixed(2))}Gi`;
}

/**
 * USD per hour with 4 decimals: `0.096` → `$0.0960`. Rounded to 6 decimals first, as JSON
 * prints prices ({@link roundUsd}), so a price and a total of the same value read alike
 * (0.7 × 0.0765 is 0.053549999…: `$0.0535` beside a total of `$0.0536`).
 */
export function formatUsd(perHour: number): string {
  return `$${roundUsd(perHour).toFixed(4)}`;
}

/**
 * A USD/hour price rounded to 6 decimals, as every JSON/YAML output prints prices: sums and
 * modelled prices (0.7 × on-demand) carry float noise such as `0.09407999999999998`.
 */
export function roundUsd(perHour: number): number {
  return Math.round(perHour * 1e6) / 1e6;
}

/** `part/whole` as a percentage with no decimals, `-` when whole is zero. */
export function formatPercent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((100 * part) / whole)}%` : '-';
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
