/**
 * The recorded EC2 catalog shipped in data/ (see data/README.md for sources): instance type
 * records, availability-zone offerings per region, and static on-demand prices per region. The
 * shapes here are also what tools/refresh-aws-catalog writes.
 */
import { readFileSync } from 'node:fs';

/** One GPU model on an instance type (`GpuInfo.Gpus[0]`). */
export interface GpuRecord {
  /** Lower-kebab-case, e.g. `t4`, `radeon-pro-v520`. */
  readonly name: string;
  /** `nvidia`, `amd`, `habana`. */
  readonly manufacturer: string;
  /** GPUs; 0 for fractional-GPU types (g6f, gr6f). */
  readonly count: number;
  /** MiB per GPU. */
  readonly memoryMiB: number;
  /** Fraction of one GPU for fractional types. */
  readonly partitionSize?: number;
}

/** One inference/training accelerator model (Inferentia, Trainium, Qualcomm). */
export interface AcceleratorRecord {
  readonly name: string;
  readonly manufacturer: string;
  /** Devices. */
  readonly count: number;
  /** Neuron cores per device, when the source recorded it (`NeuronInfo…CoreInfo.Count`). */
  readonly coresPerDevice?: number;
}

/** Network interface limits. */
export interface EniRecord {
  /** ENIs on the default network card (what the max-pods formula uses). */
  readonly maxEnis: number;
  readonly ipv4PerEni: number;
  readonly networkCards: number;
  readonly totalEnis: number;
  /** Branch ENIs (security groups for pods) when trunking-compatible. */
  readonly branchEnis?: number;
  /** `EfaInfo.MaximumEfaInterfaces`. */
  readonly efaMax?: number;
  readonly src?: string;
}

/** Published allocatable of the docs table (AL2023, 20Gi root, 0.075 overhead, no overrides). */
export interface PublishedAllocatable {
  readonly cpuMillis: number;
  readonly memoryMiB: number;
  readonly ephemeralStorageGiB: number;
  readonly pods: number;
  readonly podEni?: number;
  readonly efa?: number;
  readonly nvidiaGpu?: number;
  readonly amdGpu?: number;
  readonly neuron?: number;
  readonly neuronCore?: number;
  readonly habanaGaudi?: number;
}

/** One EC2 instance type. Units in field names (MiB, Mbps, GB = 10^9 bytes, MHz). */
export interface InstanceTypeRecord {
  readonly name: string;
  readonly family: string;
  readonly category: string;
  readonly generation: number;
  readonly size: string;
  readonly flex: boolean;
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly arch: 'amd64' | 'arm64';
  readonly cpuManufacturer: string;
  readonly cpuClockMhz?: number;
  /** `nitro`, `xen`, or `''` (bare metal). */
  readonly hypervisor: string;
  readonly bareMetal: boolean;
  readonly encryptionInTransit: boolean;
  readonly nitroEnclaves?: boolean;
  readonly ebsBandwidthMbps?: number;
  readonly networkBandwidthMbps?: number;
  /** Decimal GB of NVMe instance storage. */
  readonly localNvmeGB?: number;
  readonly gpu?: GpuRecord;
  readonly accelerator?: AcceleratorRecord;
  /** Subset of `on-demand`, `spot`. */
  readonly capacityTypes: readonly string[];
  readonly capacityBlock?: boolean;
  readonly eni: EniRecord;
  /** ENI-limited max pods with reservedENIs 0. */
  readonly maxPods: number;
  /** Present in the shipped docs-table data; absent in freshly refreshed data. */
  readonly allocatable?: PublishedAllocatable;
}

/** Zone offerings of one region. */
export interface RegionOfferings {
  readonly zones: readonly string[];
  /** Instance type → zones offering it. */
  readonly types: Readonly<Record<string, readonly string[]>>;
}

/** Static on-demand prices of one region. */
export interface RegionPrices {
  /** `USD`, or `CNY` for cn-* regions. */
  readonly currency: string;
  readonly generatedAt?: string;
  readonly sourceFile?: string;
  readonly count?: number;
  /** Instance type → price per instance-hour. */
  readonly prices: Readonly<Record<string, number>>;
}

/** The whole catalog. */
export interface AwsCatalog {
  readonly instanceTypes: readonly InstanceTypeRecord[];
  readonly offerings: Readonly<Record<string, RegionOfferings>>;
  readonly pricing: Readonly<Record<string, RegionPrices>>;
}

/** The on-demand price table used for regions that have none (as upstream). */
export const FallbackPricingRegion = 'us-east-1';

let shipped: AwsCatalog | undefined;

/**
 * The catalog shipped in data/, parsed once and cached (about 1 MB of JSON). Throws a plain Error
 * naming the file when a data file is missing or malformed.
 */
export function shippedAwsCatalog(): AwsCatalog {
  shipped ??= {
    instanceTypes: (readData('instance-types.json') as { types: InstanceTypeRecord[] }).types,
    offerings: (
      readData('instance-type-offerings.json') as { regions: Record<string, RegionOfferings> }
    ).regions,
    pricing: (readData('pricing-on-demand.json') as { regions: Record<string, RegionPrices> })
      .regions,
  };
  return shipped;
}

function readData(file: string): unknown {
  // data/ sits next to src/ and dist/, so the same relative URL works from sources and builds.
  const url = new URL(`../data/${file}`, import.meta.url);
  try {
    return JSON.parse(readFileSync(url, 'utf8'));
  } catch (cause) {
    throw new Error(`cannot read AWS catalog data ${url.pathname}: ${(cause as Error).message}`, {
      cause,
    });
  }
}
