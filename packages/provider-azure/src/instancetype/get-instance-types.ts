/**
 * The instance types an AKSNodeClass gets in a region, and a small cache around them.
 */
import { AzurePricing } from '../catalog/pricing.js';
import { allAzureSkus, type AzureSku } from '../catalog/sku.js';
import { canonicalSha256 } from '../nodeclass/canonical-hash.js';
import type { AKSNodeClass } from '../nodeclass/types.js';
import { localDNSEnabled, nodeClassExclusionReasons, skuExclusionReasons } from './filters.js';
import { AzureInstanceType, type InstanceTypeParameters } from './instance-type.js';
import { maxPods } from './max-pods.js';
import { buildOfferings } from './offerings.js';
import type { AzureInstanceTypeOptions } from './options.js';

/** Default `spec.osDiskSizeGB` (GB). */
export const DEFAULT_OS_DISK_SIZE_GB = 128;

/** Arguments of {@link getAzureInstanceTypes}. */
export interface GetAzureInstanceTypesInput {
  /** ARM region name, e.g. `eastus`. */
  readonly region: string;
  readonly nodeClass: AKSNodeClass;
  readonly options?: AzureInstanceTypeOptions;
}

/**
 * Whether the static catalog offers `sku` in `region`: ARM zone data lists the region, or the
 * price table prices the size there (the only per-region fact we ship for most sizes).
 */
export function offeredInRegion(sku: AzureSku, region: string, pricing: AzurePricing): boolean {
  if (sku.armZones !== undefined && region in sku.armZones) return true;
  return pricing.has(region, sku.name);
}

/** The parameters an instance type is built with, from the NodeClass and operator options. */
export function instanceTypeParameters(
  region: string,
  nodeClass: AKSNodeClass,
  options: AzureInstanceTypeOptions = {},
): InstanceTypeParameters {
  const spec = nodeClass.spec;
  return {
    region,
    osDiskSizeGB: spec.osDiskSizeGB ?? DEFAULT_OS_DISK_SIZE_GB,
    maxPods: maxPods(
      options.networkPlugin ?? 'azure',
      options.networkPluginMode ?? 'overlay',
      spec.maxPods,
    ),
    imageFamily: spec.imageFamily ?? 'Ubuntu',
    fips: spec.fipsMode === 'FIPS',
    ...(options.vmMemoryOverheadPercent !== undefined
      ? { vmMemoryOverheadPercent: options.vmMemoryOverheadPercent }
      : {}),
    ...(options.nodeResourceGroup !== undefined
      ? { nodeResourceGroup: options.nodeResourceGroup }
      : {}),
  };
}

/**
 * Every instance type the NodeClass can launch in `region`, sorted by name, offerings included
 * whether available or not. Sizes are dropped by the provider-wide and NodeClass filters
 * (`filters.ts`) and when the catalog does not offer them in the region.
 *
 * Errors: throws `Error` naming `region` when it is empty or a region the catalog does not know
 * (neither priced nor listed by ARM data).
 */
export function getAzureInstanceTypes(input: GetAzureInstanceTypesInput): AzureInstanceType[] {
  const { region, nodeClass, options = {} } = input;
  if (!region) throw new Error('region: must be an ARM region name such as "eastus"');
  const pricing = options.pricing ?? AzurePricing.fromStaticData();
  const skus = options.skus ?? allAzureSkus();
  if (
    !pricing.regions().includes(region) &&
    !skus.some((s) => s.armZones !== undefined && region in s.armZones)
  ) {
    throw new Error(
      `region: unknown Azure region "${region}" (known: ${pricing.regions().join(', ')})`,
    );
  }
  const params = instanceTypeParameters(region, nodeClass, options);
  const result: AzureInstanceType[] = [];
  for (const sku of skus) {
    if (!offeredInRegion(sku, region, pricing)) continue;
    if (skuExclusionReasons(sku).length > 0) continue;
    if (nodeClassExclusionReasons(sku, nodeClass, options.kubernetesVersion).length > 0) continue;
    const offerings = buildOfferings(sku, {
      region,
      pricing,
      ...(options.isUnavailable ? { isUnavailable: options.isUnavailable } : {}),
    });
    result.push(new AzureInstanceType(sku, offerings, params));
  }
  return result;
}

/**
 * Hash of what in a NodeClass changes its instance types: the spec without `tags`, the resolved
 * local DNS state and the Kubernetes version. Hex sha256.
 */
export function nodeClassInstanceTypeHash(nodeClass: AKSNodeClass): string {
  const { tags: _tags, ...spec } = nodeClass.spec;
  return canonicalSha256({
    spec,
    localDNS: localDNSEnabled(nodeClass),
    kubernetesVersion: nodeClass.status?.kubernetesVersion,
  });
}

/**
 * Caches instance types per (region, NodeClass hash) for fixed operator options, like upstream's
 * instance-type cache keyed by the NodeClass parameters. Call {@link AzureCatalog.invalidate} when
 * prices or the unavailable-offerings state change.
 */
export class AzureCatalog {
  readonly #options: AzureInstanceTypeOptions;
  readonly #cache = new Map<string, readonly AzureInstanceType[]>();

  constructor(options: AzureInstanceTypeOptions = {}) {
    this.#options = options;
  }

  /** Instance types for the NodeClass in `region` (the same array for the same key until invalidated). */
  instanceTypes(region: string, nodeClass: AKSNodeClass): readonly AzureInstanceType[] {
    const key = `${region}/${nodeClassInstanceTypeHash(nodeClass)}`;
    let hit = this.#cache.get(key);
    if (!hit) {
      hit = getAzureInstanceTypes({ region, nodeClass, options: this.#options });
      this.#cache.set(key, hit);
    }
    return hit;
  }

  /** Number of cached (region, NodeClass) entries. */
  get size(): number {
    return this.#cache.size;
  }

  /** Drops every cached entry. */
  invalidate(): void {
    this.#cache.clear();
  }
}
