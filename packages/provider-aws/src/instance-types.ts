/**
 * EC2 instance types as cloud provider InstanceTypes: labels (requirements), capacity, overhead
 * and offerings, built from the recorded catalog for one region and one EC2NodeClass the way
 * upstream's instance type provider does.
 */
import {
  createInstanceType,
  createOffering,
  type CapacityType,
  type InstanceType,
  type InstanceTypeOverhead,
  type Offering,
  type OfferingKey,
} from '@karpenter-ts/cloudprovider';
import { Requirements, type ResourceList } from '@karpenter-ts/scheduling';
import type { NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import {
  DefaultKubeReservedStorageBytes,
  DefaultVMMemoryOverheadPercent,
  ephemeralStorageBytes,
  evictionThreshold,
  isWindowsFamily,
  kubeReservedCpuMillicores,
  kubeReservedMemoryBytes,
  maxPods,
  memoryCapacityBytes,
  reservedResources,
} from './allocatable.js';
import { shippedAwsCatalog, type AwsCatalog, type InstanceTypeRecord } from './catalog-data.js';
import { resolveAMIFamily, type AMIFamily, type EC2NodeClass } from './ec2nodeclass.js';
import { defaultEC2NodeClass } from './defaults.js';
import { AwsLabels, AwsResources, WindowsBuilds } from './labels.js';
import { regionPricing, type RegionPricing, type SpotPriceTable } from './pricing.js';
import type { CapacityReservationStatus } from './nodeclass/capacity-reservations.js';

/** Flags of the AWS controller that change the catalog, with upstream's defaults. */
export interface AwsCatalogOptions {
  /** `--vm-memory-overhead-percent`, a fraction; default 0.075. */
  readonly vmMemoryOverheadPercent?: number;
  /** `--reserved-enis`; default 0. */
  readonly reservedENIs?: number;
  /** Spot price as a fraction of on-demand; default 0.7 (upstream's fake provider). */
  readonly spotPriceFactor?: number;
  /** Live spot prices (see SpotPriceTable); default the `spotPriceFactor` model. */
  readonly spotPrices?: SpotPriceTable;
  /** Offerings to report unavailable (an insufficient-capacity cache). */
  readonly unavailableOfferings?: readonly OfferingKey[];
  /**
   * Instances each capacity reservation can still take, by reservation ID. When given (the
   * ReservedCapacity gate), the NodeClass's `status.capacityReservations` become `reserved`
   * offerings; without it there are none.
   */
  readonly reservationCapacity?: (reservationId: string) => number;
  /** The catalog data; default the one shipped in data/. */
  readonly catalog?: AwsCatalog;
}

/** Input of {@link getAwsInstanceTypes}. */
export interface GetAwsInstanceTypesInput {
  /** EC2 region, e.g. `us-east-1`; must have recorded zone offerings in the catalog. */
  readonly region: string;
  /** Default: {@link defaultEC2NodeClass}. Its kubelet, blockDeviceMappings, instanceStorePolicy, networkInterfaces, connectionTracking, AMI family and `status.subnets` zones shape the result. */
  readonly nodeClass?: EC2NodeClass;
  readonly options?: AwsCatalogOptions;
}

/** Neuron cores per device by accelerator name, for records that do not carry `coresPerDevice`. */
const NeuronCoresPerDevice: Readonly<Record<string, number>> = {
  inferentia: 4,
  inferentia2: 2,
  trainium: 2,
  trainium2: 8,
};

/** Reserved offerings cost the on-demand price divided by this (upstream: almost free, same order). */
export const ReservedPriceDivisor = 10_000_000;

/** Everything a single instance type's build depends on. */
interface BuildContext {
  readonly region: string;
  readonly family: AMIFamily;
  readonly nodeClass: EC2NodeClass;
  readonly options: AwsCatalogOptions;
  readonly zones: ReadonlySet<string> | undefined;
  readonly pricing: RegionPricing;
  readonly offeredZones: Readonly<Record<string, readonly string[]>>;
  readonly unavailable: ReadonlySet<string>;
}

const cache = new Map<string, InstanceType[]>();
const CacheLimit = 16;

/**
 * Every instance type of the catalog for `region` under `nodeClass`, including those whose
 * offerings are all unavailable (no price, incompatible with the NodeClass, or listed in
 * `unavailableOfferings`), as upstream's GetInstanceTypes does. Types the region does not offer
 * at all are left out. Results are memoized per (region, NodeClass spec and subnet zones,
 * options); treat them as read-only.
 *
 * Throws Error when the region has no recorded offerings (naming the recorded regions), and
 * QuantityError/RangeError for unparsable kubelet or block-device quantities in the NodeClass.
 */
export function getAwsInstanceTypes(input: GetAwsInstanceTypesInput): InstanceType[] {
  const nodeClass = input.nodeClass ?? defaultEC2NodeClass();
  const options = input.options ?? {};
  const catalog = options.catalog ?? shippedAwsCatalog();
  const regionOfferings = catalog.offerings[input.region];
  if (regionOfferings === undefined) {
    throw new Error(
      `no recorded EC2 zone offerings for region ${input.region}; recorded regions: ${Object.keys(catalog.offerings).join(', ')}`,
    );
  }
  const subnetZones = nodeClass.status?.subnets?.map((s) => s.zone) ?? [];
  const ctx: BuildContext = {
    region: input.region,
    family: resolveAMIFamily(nodeClass.spec),
    nodeClass,
    options,
    zones: subnetZones.length > 0 ? new Set(subnetZones) : undefined,
    pricing: regionPricing(catalog, input.region, options),
    offeredZones: regionOfferings.types,
    unavailable: new Set((options.unavailableOfferings ?? []).map(offeringKeyString)),
  };
  const key = cacheKey(input.region, nodeClass, options, catalog);
  let types = cache.get(key);
  if (types === undefined) {
    types = [];
    for (const record of catalog.instanceTypes) {
      if (regionOfferings.types[record.name] === undefined) continue;
      types.push(awsInstanceType(record, ctx));
    }
    if (cache.size >= CacheLimit) cache.delete(cache.keys().next().value as string);
    cache.set(key, types);
  }
  // Reserved offerings change with every launch into a reservation: rebuilt on every call, as
  // upstream's are, for the few types a reservation names.
  const byType = new Map<string, CapacityReservationStatus[]>();
  if (options.reservationCapacity !== undefined)
    for (const r of nodeClass.status?.capacityReservations ?? [])
      byType.set(r.instanceType, [...(byType.get(r.instanceType) ?? []), r]);
  if (byType.size === 0) return types;
  const records = recordsByName(catalog);
  return types.map((t) => {
    const reservations = byType.get(t.name);
    const record = records.get(t.name);
    return reservations && record ? awsInstanceType(record, ctx, reservations) : t;
  });
}

const recordMaps = new WeakMap<AwsCatalog, Map<string, InstanceTypeRecord>>();
function recordsByName(catalog: AwsCatalog): Map<string, InstanceTypeRecord> {
  let m = recordMaps.get(catalog);
  if (m === undefined) {
    m = new Map(catalog.instanceTypes.map((r) => [r.name, r]));
    recordMaps.set(catalog, m);
  }
  return m;
}

function awsInstanceType(
  record: InstanceTypeRecord,
  ctx: BuildContext,
  reservations: readonly CapacityReservationStatus[] = [],
): InstanceType {
  const capacity = awsCapacity(record, ctx.nodeClass, ctx.options);
  const zones = (ctx.offeredZones[record.name] ?? []).filter((z) => ctx.zones?.has(z) ?? true);
  const inZones = reservations.filter((r) => zones.includes(r.availabilityZone));
  return createInstanceType({
    name: record.name,
    requirements: Requirements.fromNodeSelectorRequirements(
      awsRequirements(record, {
        region: ctx.region,
        family: ctx.family,
        zones,
        reservations: inZones,
      }),
    ),
    offerings: [...awsOfferings(record, zones, ctx), ...reservedOfferings(record, inZones, ctx)],
    capacity,
    overhead: awsOverhead(record, capacity, ctx.nodeClass),
  });
}

/**
 * Capacity of one instance type under a NodeClass: cpu (millicores), memory after the VM
 * overhead (bytes), pods, ephemeral-storage (bytes), and the extended resources it has (GPUs by
 * vendor, Neuron devices and cores, EFA, pod ENIs, Windows private IPv4 addresses).
 */
export function awsCapacity(
  record: InstanceTypeRecord,
  nodeClass: EC2NodeClass,
  options: Pick<AwsCatalogOptions, 'vmMemoryOverheadPercent' | 'reservedENIs'> = {},
): ResourceList {
  const family = resolveAMIFamily(nodeClass.spec);
  const nics = nodeClass.spec.networkInterfaces;
  const efaOnlyOnCard0 =
    nics?.filter((n) => n.networkCardIndex === 0 && n.interfaceType === 'efa-only').length ?? 0;
  const capacity: Record<string, number> = {
    cpu: record.vcpu * 1000,
    memory: memoryCapacityBytes(
      record,
      options.vmMemoryOverheadPercent ?? DefaultVMMemoryOverheadPercent,
    ),
    pods: maxPods(record, {
      family,
      kubelet: nodeClass.spec.kubelet,
      reservedENIs: options.reservedENIs ?? 0,
      efaOnlyInterfacesOnCard0: efaOnlyOnCard0,
    }),
    'ephemeral-storage': ephemeralStorageBytes(record, {
      family,
      blockDeviceMappings: nodeClass.spec.blockDeviceMappings,
      instanceStorePolicy: nodeClass.spec.instanceStorePolicy,
    }),
  };
  const gpu = record.gpu;
  if (gpu !== undefined && gpu.count > 0) {
    const resource =
      gpu.manufacturer === 'nvidia'
        ? AwsResources.NvidiaGPU
        : gpu.manufacturer === 'amd'
          ? AwsResources.AmdGPU
          : gpu.manufacturer === 'habana'
            ? AwsResources.HabanaGaudi
            : undefined;
    if (resource !== undefined) capacity[resource] = gpu.count;
  }
  const acc = record.accelerator;
  if (acc !== undefined && acc.manufacturer === 'aws' && acc.count > 0) {
    capacity[AwsResources.Neuron] = acc.count;
    const cores = acc.coresPerDevice ?? NeuronCoresPerDevice[acc.name];
    if (cores !== undefined) capacity[AwsResources.NeuronCore] = acc.count * cores;
  }
  const efa =
    nics !== undefined && nics.length > 0
      ? nics.filter((n) => n.interfaceType === 'efa-only').length
      : (record.eni.efaMax ?? 0);
  if (efa > 0) capacity[AwsResources.EFA] = efa;
  if (record.eni.branchEnis !== undefined && record.eni.branchEnis > 0) {
    capacity[AwsResources.PodENI] = record.eni.branchEnis;
  }
  if (isWindowsFamily(family))
    capacity[AwsResources.PrivateIPv4Address] = record.eni.ipv4PerEni - 1;
  return capacity;
}

/**
 * Overhead of one instance type: kube-reserved (cpu slices, (11 × pods + 255) MiB, 1Gi storage;
 * `kubelet.kubeReserved` replaces entries key by key), system-reserved (only what
 * `kubelet.systemReserved` sets) and the eviction threshold (100Mi and 10% of storage unless
 * `kubelet.evictionHard` says otherwise).
 */
export function awsOverhead(
  record: InstanceTypeRecord,
  capacity: ResourceList,
  nodeClass: EC2NodeClass,
): InstanceTypeOverhead {
  const family = resolveAMIFamily(nodeClass.spec);
  const kubelet = nodeClass.spec.kubelet;
  const pods = capacity.pods ?? 0;
  return {
    kubeReserved: {
      cpu: kubeReservedCpuMillicores(record.vcpu * 1000),
      memory: kubeReservedMemoryBytes(record, family, pods),
      'ephemeral-storage': DefaultKubeReservedStorageBytes,
      ...reservedResources(kubelet?.kubeReserved),
    },
    systemReserved: reservedResources(kubelet?.systemReserved),
    evictionThreshold: evictionThreshold(
      capacity.memory ?? 0,
      capacity['ephemeral-storage'] ?? 0,
      kubelet,
    ),
  };
}

/**
 * The requirements (labels) of one instance type: every well-known label, with the optional AWS
 * labels as DoesNotExist when the type lacks the property (upstream defines them all).
 */
export function awsRequirements(
  record: InstanceTypeRecord,
  where: {
    region: string;
    family: AMIFamily;
    zones: readonly string[];
    /** Capacity reservations of this type in `zones`: add `reserved` and the reservation labels. */
    reservations?: readonly CapacityReservationStatus[];
  },
): NodeSelectorRequirementWithMinValues[] {
  const reqs: NodeSelectorRequirementWithMinValues[] = [];
  const inValues = (key: string, ...values: string[]) => reqs.push({ key, operator: 'In', values });
  const optional = (key: string, value: string | number | undefined) =>
    value === undefined
      ? reqs.push({ key, operator: 'DoesNotExist' })
      : inValues(key, String(value));
  const windows = isWindowsFamily(where.family);
  inValues('node.kubernetes.io/instance-type', record.name);
  inValues('kubernetes.io/arch', record.arch);
  inValues('kubernetes.io/os', windows ? 'windows' : 'linux');
  optional('node.kubernetes.io/windows-build', windows ? WindowsBuilds[where.family] : undefined);
  inValues('topology.kubernetes.io/zone', ...where.zones);
  inValues('topology.kubernetes.io/region', where.region);
  const reservations = where.reservations ?? [];
  inValues(
    'karpenter.sh/capacity-type',
    ...record.capacityTypes,
    ...(reservations.length > 0 ? ['reserved'] : []),
  );
  if (reservations.length > 0) {
    const distinct = (f: (r: CapacityReservationStatus) => string) => [
      ...new Set(reservations.map(f)),
    ];
    inValues(AwsLabels.CapacityReservationID, ...distinct((r) => r.id));
    inValues(AwsLabels.CapacityReservationType, ...distinct(reservationTypeOf));
    inValues(AwsLabels.CapacityReservationInterruptible, ...distinct(interruptibleOf));
  }
  inValues(AwsLabels.InstanceCategory, record.category);
  inValues(AwsLabels.InstanceFamily, record.family);
  inValues(AwsLabels.InstanceGeneration, String(record.generation));
  inValues(AwsLabels.InstanceSize, record.size);
  inValues(AwsLabels.InstanceCapabilityFlex, String(record.flex));
  inValues(AwsLabels.InstanceCPU, String(record.vcpu));
  inValues(AwsLabels.InstanceCPUManufacturer, record.cpuManufacturer);
  optional(AwsLabels.InstanceCPUSustainedClockSpeedMhz, record.cpuClockMhz);
  inValues(AwsLabels.InstanceMemory, String(record.memoryMiB));
  inValues(AwsLabels.InstanceHypervisor, record.hypervisor);
  inValues(AwsLabels.InstanceEncryptionInTransitSupported, String(record.encryptionInTransit));
  optional(AwsLabels.InstanceEBSBandwidth, record.ebsBandwidthMbps);
  optional(AwsLabels.InstanceNetworkBandwidth, record.networkBandwidthMbps);
  optional(AwsLabels.InstanceLocalNVME, record.localNvmeGB);
  optional(AwsLabels.InstanceGPUName, record.gpu?.name);
  optional(AwsLabels.InstanceGPUManufacturer, record.gpu?.manufacturer);
  optional(AwsLabels.InstanceGPUCount, record.gpu?.count);
  optional(AwsLabels.InstanceGPUMemory, record.gpu?.memoryMiB);
  optional(AwsLabels.InstanceAcceleratorName, record.accelerator?.name);
  optional(AwsLabels.InstanceAcceleratorManufacturer, record.accelerator?.manufacturer);
  optional(AwsLabels.InstanceAcceleratorCount, record.accelerator?.count);
  inValues(AwsLabels.InstanceTenancy, 'default', 'dedicated');
  return reqs;
}

/**
 * On-demand and spot offerings in each zone (capacity types the type supports). An offering is
 * available only when it has a price, the type is compatible with the NodeClass and the
 * offering is not in the unavailable list.
 */
function awsOfferings(
  record: InstanceTypeRecord,
  zones: readonly string[],
  ctx: BuildContext,
): Offering[] {
  const compatible = isCompatibleWithNodeClass(record, ctx);
  const offerings: Offering[] = [];
  for (const zone of zones) {
    for (const capacityType of record.capacityTypes as CapacityType[]) {
      if (capacityType !== 'on-demand' && capacityType !== 'spot') continue;
      const price =
        capacityType === 'spot'
          ? ctx.pricing.spot(record.name, zone)
          : ctx.pricing.onDemand(record.name);
      const unavailable = ctx.unavailable.has(
        offeringKeyString({ instanceType: record.name, zone, capacityType }),
      );
      offerings.push(
        createOffering({
          zone,
          capacityType,
          price: price ?? 0,
          available: compatible && price !== undefined && !unavailable,
        }),
      );
    }
  }
  return offerings;
}

const reservationTypeOf = (r: CapacityReservationStatus): string => r.reservationType ?? 'default';
const interruptibleOf = (r: CapacityReservationStatus): string => String(r.interruptible ?? false);

/**
 * One `reserved` offering per capacity reservation of the type in `zones` (reference 4.4):
 * price on-demand / {@link ReservedPriceDivisor} (0 when the type has no on-demand price),
 * `reservationCapacity` the instances it can still take, the labels
 * `karpenter.k8s.aws/capacity-reservation-id`, `-type` and `-interruptible`. Available while the
 * type is compatible with the NodeClass, the reservation can take an instance and it is not
 * `expiring` (a capacity block in its last 40 minutes takes no new node).
 */
function reservedOfferings(
  record: InstanceTypeRecord,
  reservations: readonly CapacityReservationStatus[],
  ctx: BuildContext,
): Offering[] {
  const remaining = ctx.options.reservationCapacity;
  if (remaining === undefined || reservations.length === 0) return [];
  const compatible = isCompatibleWithNodeClass(record, ctx);
  const price = (ctx.pricing.onDemand(record.name) ?? 0) / ReservedPriceDivisor;
  return reservations.map((r) => {
    const capacity = remaining(r.id);
    return createOffering({
      zone: r.availabilityZone,
      capacityType: 'reserved',
      price,
      available: compatible && capacity > 0 && r.state !== 'expiring',
      reservationCapacity: capacity,
      labels: {
        [AwsLabels.CapacityReservationID]: r.id,
        [AwsLabels.CapacityReservationType]: reservationTypeOf(r),
        [AwsLabels.CapacityReservationInterruptible]: interruptibleOf(r),
      },
    });
  });
}

/**
 * Upstream's NodeClass compatibility checks that our data can answer: a1 types do not run
 * AL2023; Windows AMIs exist only for amd64; connection tracking needs Nitro (not Xen).
 */
function isCompatibleWithNodeClass(record: InstanceTypeRecord, ctx: BuildContext): boolean {
  if (ctx.family === 'AL2023' && record.family === 'a1') return false;
  if (isWindowsFamily(ctx.family) && record.arch !== 'amd64') return false;
  if (ctx.nodeClass.spec.connectionTracking !== undefined && record.hypervisor === 'xen')
    return false;
  return true;
}

function offeringKeyString(key: OfferingKey): string {
  return `${key.capacityType}:${key.instanceType}:${key.zone}`;
}

const catalogIds = new WeakMap<AwsCatalog, number>();
let nextCatalogId = 0;

function cacheKey(
  region: string,
  nodeClass: EC2NodeClass,
  options: AwsCatalogOptions,
  catalog: AwsCatalog,
): string {
  let id = catalogIds.get(catalog);
  if (id === undefined) {
    id = nextCatalogId++;
    catalogIds.set(catalog, id);
  }
  return JSON.stringify([
    id,
    region,
    nodeClass.spec,
    nodeClass.status?.subnets?.map((s) => s.zone) ?? [],
    options.vmMemoryOverheadPercent,
    options.reservedENIs,
    options.spotPriceFactor,
    options.spotPrices ? identityId(options.spotPrices) : -1,
    (options.unavailableOfferings ?? []).map(offeringKeyString).sort(),
  ]);
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;
/** A number per object identity (cache keys of tables that are replaced, never mutated). */
function identityId(o: object): number {
  let id = identities.get(o);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(o, id);
  }
  return id;
}
