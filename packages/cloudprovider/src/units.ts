/** Binary and decimal size units in bytes, for building capacities exactly. */
export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;
/** Decimal gigabyte (10^9 bytes): upstream prices per "GB" of memory use this. */
export const GB = 1_000_000_000;
