/**
 * Parsing of Azure VM size names (`Standard_NC24ads_A100_v4`) into the parts the provider's
 * labels use, following the naming convention Microsoft documents and the rules of the size
 * parser upstream relies on (Azure/skewer): family letter, up to two subfamily letters, vCPU
 * count, optional constrained vCPU count after `-`, additive feature letters, an optional
 * accelerator token, optional `_cc_`, `_<n>_`, `_MI300X_` and `_H100_` infixes, a version and a
 * `_Promo` suffix. Names outside that grammar (for example the `n`-feature `D*nds_v6` sizes) do
 * not parse, and upstream drops such sizes; so do we.
 */

/** The parts of a VM size name. */
export interface VMSizeName {
  /** `D` in `D4s_v5`. */
  readonly family: string;
  /** `C` in `NC6s_v3`, `S` in `DS2_v2`; undefined when absent. */
  readonly subfamily?: string;
  /** vCPU count written in the name. */
  readonly nameCPUs: number;
  /** Constrained vCPU count (`2` in `M8-2ms`); undefined when absent. */
  readonly constrainedCPUs?: number;
  /** Feature letters, e.g. `ads`. */
  readonly additiveFeatures: string;
  /** `A100`, `T4`; undefined when absent. */
  readonly acceleratorType?: string;
  /** Version digits without `v`; `1` when the name has no version. */
  readonly version: string;
  /** `_Promo` suffix present. */
  readonly promo: boolean;
  /** Family + subfamily + features + `_vN` (`Ds_v5`). */
  readonly series: string;
}

const SIZE_PATTERN =
  /^([A-Z])([A-Z]?)([A-Z]?)([0-9]+)-?([0-9]*)([abcdeilmtspPr]+|C+|NP)?_?(?:NDR_)?(?:([A-Z][0-9]+)_?)?(_cc_)?(_[0-9]+_)?(_MI300X_)?(_H100_)?([vV][1-9])?(_Promo)?$/;

/**
 * Parses a size name with or without the `Standard_` prefix. Returns undefined when the name does
 * not follow the grammar (upstream logs and skips such sizes).
 */
export function parseVMSizeName(name: string): VMSizeName | undefined {
  const size = name.startsWith('Standard_') ? name.slice('Standard_'.length) : name;
  const m = SIZE_PATTERN.exec(size);
  if (!m) return undefined;
  const [
    ,
    family = '',
    sub1 = '',
    sub2 = '',
    cpus = '',
    constrained = '',
    features = '',
    accel,
    ,
    ,
    ,
    ,
    ver,
    promo,
  ] = m;
  const subfamily = sub1 ? sub1 + sub2 : undefined;
  const versionToken = ver ?? '';
  return {
    family,
    ...(subfamily !== undefined ? { subfamily } : {}),
    nameCPUs: Number(cpus),
    ...(constrained ? { constrainedCPUs: Number(constrained) } : {}),
    additiveFeatures: features,
    ...(accel ? { acceleratorType: accel } : {}),
    version: versionToken ? versionToken.slice(1) : '1',
    promo: promo !== undefined,
    series: family + (subfamily ?? '') + features + (versionToken ? `_${versionToken}` : ''),
  };
}
