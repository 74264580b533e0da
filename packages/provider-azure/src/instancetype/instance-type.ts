/**
 * An Azure VM size as a Karpenter instance type: requirements (every well-known label defined),
 * offerings, capacity and AKS overhead, as upstream `Azure/karpenter-provider-azure`'s instance
 * type provider.
 */
import {
  computeAllocatable,
  type InstanceType,
  type InstanceTypeOverhead,
  type Offering,
} from '@karpenter-ts/cloudprovider';
import { Requirements, type ResourceList } from '@karpenter-ts/scheduling';
import { AKSLabels, AzureLabels } from '../labels.js';
import type { AzureSku } from '../catalog/sku.js';
import { gpuSkuInfo } from '../catalog/gpu-registry.js';
import {
  DEFAULT_VM_MEMORY_OVERHEAD_PERCENT,
  EVICTION_MEMORY_AVAILABLE_BYTES,
  kubeReservedCPUMillicores,
  kubeReservedMemoryBytes,
  memoryCapacityBytes,
} from './overhead.js';
import { aksSkuLabelValues, clusterLabelValue, skuLabelValues } from './labels.js';

/** NodeClass- and operator-derived parameters that shape an instance type. */
export interface InstanceTypeParameters {
  readonly region: string;
  /** OS disk size, decimal GB (the node's ephemeral-storage). */
  readonly osDiskSizeGB: number;
  readonly maxPods: number;
  /** `Ubuntu`, `Ubuntu2204`, `Ubuntu2404` or `AzureLinux`. */
  readonly imageFamily: string;
  readonly fips: boolean;
  readonly vmMemoryOverheadPercent?: number;
  readonly nodeResourceGroup?: string;
}

/** `kubernetes.azure.com/os-sku` of an image family: `AzureLinux` or `Ubuntu`. */
export function osSKU(imageFamily: string): string {
  return imageFamily === 'AzureLinux' ? 'AzureLinux' : 'Ubuntu';
}

type Req = { key: string; operator: 'In' | 'DoesNotExist'; values?: string[] };

function inOrAbsent(key: string, values: readonly string[] | undefined): Req {
  return values && values.length > 0
    ? { key, operator: 'In', values: [...values] }
    : { key, operator: 'DoesNotExist' };
}

function distinct(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/**
 * Node selector requirements of a size, upstream's set: instance type, arch, os, region; zone,
 * capacity type and placement scope from the *available* offerings; every `karpenter.azure.com/sku-*`
 * label (DoesNotExist where the size has no value); the AKS labels sku-cpu, sku-memory, mode
 * (user|system), scalesetpriority and priority (regular|spot), os-sku, fips_enabled (DoesNotExist
 * unless FIPS) and, when the node resource group is known, cluster.
 */
export function instanceTypeRequirementList(
  sku: AzureSku,
  offerings: readonly Offering[],
  params: InstanceTypeParameters,
): Req[] {
  const available = offerings.filter((o) => o.available);
  const labels = skuLabelValues(sku);
  const aks = aksSkuLabelValues(sku);
  const list: Req[] = [
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [sku.name] },
    { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
    { key: 'topology.kubernetes.io/region', operator: 'In', values: [params.region] },
    inOrAbsent('topology.kubernetes.io/zone', distinct(available.map((o) => o.zone))),
    inOrAbsent('karpenter.sh/capacity-type', distinct(available.map((o) => o.capacityType))),
    inOrAbsent(
      AzureLabels.PlacementScope,
      distinct(available.map((o) => (o.zone === '0' ? 'regional' : 'zonal'))),
    ),
    {
      key: AzureLabels.SKUStorageUltraSSD,
      operator: 'In',
      values: sku.ultraSSDAvailable ? ['true', 'false'] : ['false'],
    },
    { key: AKSLabels.Mode, operator: 'In', values: ['system', 'user'] },
    { key: AKSLabels.ScaleSetPriority, operator: 'In', values: ['regular', 'spot'] },
    { key: AKSLabels.Priority, operator: 'In', values: ['regular', 'spot'] },
    { key: AKSLabels.OSSKU, operator: 'In', values: [osSKU(params.imageFamily)] },
    inOrAbsent(AKSLabels.FIPSEnabled, params.fips ? ['true'] : undefined),
  ];
  if (params.nodeResourceGroup !== undefined) {
    list.push({
      key: AKSLabels.Cluster,
      operator: 'In',
      values: [clusterLabelValue(params.nodeResourceGroup)],
    });
  }
  for (const key of [
    'kubernetes.io/arch',
    AzureLabels.SKUName,
    AzureLabels.SKUFamily,
    AzureLabels.SKUSeries,
    AzureLabels.SKUVersion,
    AzureLabels.SKUCPU,
    AzureLabels.SKUMemory,
    AzureLabels.SKUAcceleratedNetworking,
    AzureLabels.SKUStoragePremiumCapable,
    AzureLabels.SKUStorageEphemeralOSMaxSize,
    AzureLabels.SKUGPUCount,
    AzureLabels.SKUGPUManufacturer,
    AzureLabels.SKUGPUName,
    AzureLabels.SKUHyperVGeneration,
  ]) {
    list.push(inOrAbsent(key, labels[key]));
  }
  for (const [key, values] of Object.entries(aks)) list.push(inOrAbsent(key, values));
  return list;
}

/**
 * Capacity the kubelet reports: cpu = vCPUs (millicores); memory = floor(GiB) GiB minus the VM
 * memory overhead; ephemeral-storage = osDiskSizeGB × 10^9 bytes; pods = max pods; `nvidia.com/gpu`
 * or `amd.com/gpu` = GPU count for registry GPU sizes of that manufacturer.
 */
export function instanceTypeCapacity(sku: AzureSku, params: InstanceTypeParameters): ResourceList {
  const capacity: Record<string, number> = {
    cpu: sku.vCPUs * 1000,
    memory: memoryCapacityBytes(
      sku.memoryGiB,
      params.vmMemoryOverheadPercent ?? DEFAULT_VM_MEMORY_OVERHEAD_PERCENT,
    ),
    'ephemeral-storage': params.osDiskSizeGB * 1e9,
    pods: params.maxPods,
  };
  const gpu = gpuSkuInfo(sku.name);
  if (gpu && sku.gpuCount > 0)
    capacity[gpu.manufacturer === 'nvidia' ? 'nvidia.com/gpu' : 'amd.com/gpu'] = sku.gpuCount;
  return capacity;
}

/** AKS overhead: kube-reserved by brackets, no system-reserved, eviction `memory.available` 750Mi. */
export function instanceTypeOverhead(sku: AzureSku): InstanceTypeOverhead {
  return {
    kubeReserved: {
      cpu: kubeReservedCPUMillicores(sku.vCPUs),
      memory: kubeReservedMemoryBytes(sku.memoryGiB),
    },
    systemReserved: { cpu: 0, memory: 0 },
    evictionThreshold: { memory: EVICTION_MEMORY_AVAILABLE_BYTES },
  };
}

/** An Azure VM size as an {@link InstanceType}; allocatable is computed once, on first use. */
export class AzureInstanceType implements InstanceType {
  readonly name: string;
  readonly requirements: Requirements;
  readonly offerings: readonly Offering[];
  readonly capacity: ResourceList;
  readonly overhead: InstanceTypeOverhead;
  /** The VM size record this instance type was built from. */
  readonly sku: AzureSku;
  #allocatable: ResourceList | undefined;

  constructor(sku: AzureSku, offerings: readonly Offering[], params: InstanceTypeParameters) {
    this.sku = sku;
    this.name = sku.name;
    this.offerings = offerings;
    this.requirements = Requirements.fromNodeSelectorRequirements(
      instanceTypeRequirementList(sku, offerings, params),
    );
    this.capacity = instanceTypeCapacity(sku, params);
    this.overhead = instanceTypeOverhead(sku);
  }

  /** capacity − (kubeReserved + systemReserved + evictionThreshold), floored at zero per resource (memoized). */
  allocatable(): ResourceList {
    this.#allocatable ??= computeAllocatable(this.capacity, this.overhead);
    return this.#allocatable;
  }
}
