/**
 * Converts one DescribeInstanceTypes entry (`InstanceTypeInfo`) to the record shape of
 * packages/provider-aws/data/instance-types.json, deriving the Karpenter label values the way
 * upstream does.
 */
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { eniLimitedPods, type InstanceTypeRecord } from '@karpenter-ts/provider-aws';

/** `<category>[-<n>tb]<generation>…` of the part before the dot, as upstream parses names. */
const NamePattern = /^([a-z]+)(-[0-9]+tb)?([0-9]+).*\./;

/** Lower-case with runs of spaces turned into `-` (`Radeon Pro V520` → `radeon-pro-v520`). */
export function kebab(value: string): string {
  return value.trim().toLowerCase().replace(/\s+/g, '-');
}

/**
 * The record for an instance type, or undefined when EC2 returned something Karpenter would not
 * use (no name, no vCPU/memory/ENI facts, or an architecture other than x86_64/arm64).
 * `previous` (the record already on file) supplies what the EC2 API does not return:
 * `eni.branchEnis` (Karpenter's generated VPC limits table), the docs-table
 * `networkBandwidthMbps` and, when the facts it depends on are unchanged, the published
 * `allocatable` reference figures.
 */
export function toInstanceTypeRecord(
  info: InstanceTypeInfo,
  previous?: InstanceTypeRecord,
): InstanceTypeRecord | undefined {
  const name = info.InstanceType;
  const vcpu = info.VCpuInfo?.DefaultVCpus;
  const memoryMiB = info.MemoryInfo?.SizeInMiB;
  const net = info.NetworkInfo;
  const arch = info.ProcessorInfo?.SupportedArchitectures?.map((a) =>
    a === 'x86_64' ? 'amd64' : a === 'arm64' ? 'arm64' : undefined,
  ).find((a) => a !== undefined);
  if (name === undefined || vcpu === undefined || memoryMiB === undefined || arch === undefined)
    return undefined;
  if (net?.Ipv4AddressesPerInterface === undefined || net.MaximumNetworkInterfaces === undefined)
    return undefined;
  const dot = name.indexOf('.');
  const family = name.slice(0, dot);
  const parsed = NamePattern.exec(name);
  const defaultCard = net.DefaultNetworkCardIndex ?? 0;
  const cardEnis = net.NetworkCards?.find(
    (c) => (c.NetworkCardIndex ?? 0) === defaultCard,
  )?.MaximumNetworkInterfaces;
  const eni = {
    maxEnis: cardEnis ?? net.MaximumNetworkInterfaces,
    ipv4PerEni: net.Ipv4AddressesPerInterface,
    networkCards: net.MaximumNetworkCards ?? 1,
    totalEnis: net.MaximumNetworkInterfaces,
    ...(previous?.eni.branchEnis === undefined ? {} : { branchEnis: previous.eni.branchEnis }),
    ...(net.EfaInfo?.MaximumEfaInterfaces === undefined
      ? {}
      : { efaMax: net.EfaInfo.MaximumEfaInterfaces }),
    src: 'ec2',
  };
  const usage = info.SupportedUsageClasses ?? [];
  const clock = info.ProcessorInfo?.SustainedClockSpeedInGhz;
  const ebs = info.EbsInfo;
  const storage = info.InstanceStorageInfo;
  const gpus = info.GpuInfo?.Gpus ?? [];
  const gpu = gpus.length === 1 ? gpus[0] : undefined;
  const neuron = info.NeuronInfo?.NeuronDevices?.[0];
  const inference = info.InferenceAcceleratorInfo?.Accelerators ?? [];
  const baseline = net.NetworkCards?.reduce((sum, c) => sum + (c.BaselineBandwidthInGbps ?? 0), 0);
  const networkBandwidthMbps =
    previous?.networkBandwidthMbps ??
    (baseline !== undefined && baseline > 0 ? Math.round(baseline * 1000) : undefined);

  const record: InstanceTypeRecord = {
    name,
    family,
    category: parsed?.[1] ?? family,
    generation: parsed?.[3] === undefined ? 0 : Number(parsed[3]),
    size: name.slice(dot + 1),
    flex: family.includes('-flex'),
    vcpu,
    memoryMiB,
    arch,
    cpuManufacturer: kebab(info.ProcessorInfo?.Manufacturer ?? ''),
    ...(clock === undefined ? {} : { cpuClockMhz: Math.round(clock * 1000) }),
    hypervisor: info.Hypervisor ?? '',
    bareMetal: info.BareMetal ?? false,
    encryptionInTransit: net.EncryptionInTransitSupported ?? false,
    nitroEnclaves: info.NitroEnclavesSupport === 'supported',
    ...(ebs?.EbsOptimizedSupport === 'default' &&
    ebs.EbsOptimizedInfo?.MaximumBandwidthInMbps !== undefined
      ? { ebsBandwidthMbps: ebs.EbsOptimizedInfo.MaximumBandwidthInMbps }
      : {}),
    ...(networkBandwidthMbps === undefined ? {} : { networkBandwidthMbps }),
    ...(storage?.TotalSizeInGB !== undefined && storage.NvmeSupport !== 'unsupported'
      ? { localNvmeGB: storage.TotalSizeInGB }
      : {}),
    ...(gpu === undefined
      ? {}
      : {
          gpu: {
            name: kebab(gpu.Name ?? ''),
            manufacturer: kebab(gpu.Manufacturer ?? ''),
            count: gpu.Count ?? 0,
            memoryMiB: gpu.MemoryInfo?.SizeInMiB ?? 0,
          },
        }),
    ...(neuron !== undefined
      ? {
          accelerator: {
            name: kebab(neuron.Name ?? ''),
            manufacturer: 'aws',
            count: neuron.Count ?? 0,
            ...(neuron.CoreInfo?.Count === undefined
              ? {}
              : { coresPerDevice: neuron.CoreInfo.Count }),
          },
        }
      : inference.length === 1
        ? {
            accelerator: {
              name: kebab(inference[0]?.Name ?? ''),
              manufacturer: kebab(inference[0]?.Manufacturer ?? ''),
              count: inference[0]?.Count ?? 0,
            },
          }
        : {}),
    capacityTypes: usage.filter((u) => u === 'on-demand' || u === 'spot'),
    ...(usage.includes('capacity-block') ? { capacityBlock: true } : {}),
    eni,
    maxPods: eniLimitedPods(eni),
  };
  const allocatable = previous?.allocatable;
  if (allocatable !== undefined && sameAllocatableInputs(record, previous as InstanceTypeRecord)) {
    return { ...record, allocatable };
  }
  return record;
}

/** Whether the facts the published allocatable depends on are unchanged. */
function sameAllocatableInputs(a: InstanceTypeRecord, b: InstanceTypeRecord): boolean {
  return (
    a.vcpu === b.vcpu &&
    a.memoryMiB === b.memoryMiB &&
    a.arch === b.arch &&
    a.eni.maxEnis === b.eni.maxEnis &&
    a.eni.ipv4PerEni === b.eni.ipv4PerEni
  );
}
