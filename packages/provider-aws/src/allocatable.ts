/**
 * EKS capacity and overhead math for EC2 instance types, reproducing upstream's instance type
 * provider (aws/karpenter-provider-aws pkg/providers/instancetype/types.go): ENI-limited max pods,
 * VM memory overhead, kube-reserved,
 * system-reserved, eviction thresholds and ephemeral storage. Resources are canonical integers:
 * cpu millicores, memory and storage bytes, pods counts.
 */
import { parseQuantity, quantityToMilli, quantityToValue } from '@karpenter-ts/scheduling';
import type { AMIFamily, BlockDeviceMapping, KubeletConfiguration } from './ec2nodeclass.js';
import type { InstanceTypeRecord } from './catalog-data.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Default `--vm-memory-overhead-percent` (a fraction, not a percentage). */
export const DefaultVMMemoryOverheadPercent = 0.075;
/** Pods on Windows nodes unless `kubelet.maxPods` is set. */
export const WindowsDefaultMaxPods = 110;
/** Default eviction-hard memory.available. */
export const DefaultEvictionMemoryBytes = 100 * MiB;
/** Default nodefs.available eviction threshold, percent of ephemeral storage. */
export const DefaultEvictionStoragePercent = 10;
/** Memory Graviton kernels reserve for CMA (MiB), taken off arm64 types. */
export const Arm64CmaReservedMiB = 64;

/** AMI families whose pod density is ENI-limited by default. */
export function usesENILimitedPods(family: AMIFamily): boolean {
  return (
    family === 'AL2' || family === 'AL2023' || family === 'Bottlerocket' || family === 'Custom'
  );
}

/** Whether `podsPerCore` applies (every family but Bottlerocket). */
export function supportsPodsPerCore(family: AMIFamily): boolean {
  return family !== 'Bottlerocket';
}

/** Whether the family is a Windows Server family. */
export function isWindowsFamily(family: AMIFamily): boolean {
  return family.startsWith('Windows');
}

/**
 * ENI-limited max pods: usableENIs × (IPv4 per ENI − 1) + 2, where usableENIs = ENIs on the
 * default network card − reservedENIs − efa-only interfaces on card 0 (0 when none are left,
 * and then max pods is 0).
 */
export function eniLimitedPods(
  eni: { maxEnis: number; ipv4PerEni: number },
  options: { reservedENIs?: number; efaOnlyInterfacesOnCard0?: number } = {},
): number {
  const usable = Math.max(
    0,
    eni.maxEnis - (options.reservedENIs ?? 0) - (options.efaOnlyInterfacesOnCard0 ?? 0),
  );
  return usable === 0 ? 0 : usable * (eni.ipv4PerEni - 1) + 2;
}

/** Inputs of {@link maxPods}. */
export interface MaxPodsInput {
  readonly family: AMIFamily;
  readonly kubelet?: KubeletConfiguration;
  readonly reservedENIs?: number;
  readonly efaOnlyInterfacesOnCard0?: number;
}

/**
 * Pods the kubelet will admit: `kubelet.maxPods` when set, else the ENI-limited count for
 * AL2/AL2023/Bottlerocket/Custom, else 110 (Windows); then capped at podsPerCore × vCPUs when
 * podsPerCore > 0 and the family honours it.
 */
export function maxPods(it: InstanceTypeRecord, input: MaxPodsInput): number {
  let pods: number;
  if (input.kubelet?.maxPods !== undefined) pods = input.kubelet.maxPods;
  else if (usesENILimitedPods(input.family)) pods = eniLimitedPods(it.eni, input);
  else pods = WindowsDefaultMaxPods;
  const perCore = input.kubelet?.podsPerCore ?? 0;
  if (perCore > 0 && supportsPodsPerCore(input.family)) pods = Math.min(pods, perCore * it.vcpu);
  return pods;
}

/**
 * Default kube-reserved cpu in millicores for a capacity in millicores: 6% of the first core,
 * 1% of the second, 0.5% of cores three and four, 0.25% of the rest, each slice truncated to
 * whole millicores (1 vCPU → 60, 2 → 70, 4 → 80, 8 → 90, 96 → 310).
 */
export function kubeReservedCpuMillicores(cpuMillicores: number): number {
  const slice = (from: number, to: number) => Math.max(0, Math.min(cpuMillicores, to) - from);
  return (
    Math.floor((slice(0, 1000) * 6) / 100) +
    Math.floor(slice(1000, 2000) / 100) +
    Math.floor((slice(2000, 4000) * 5) / 1000) +
    Math.floor((slice(4000, Number.MAX_SAFE_INTEGER) * 25) / 10000)
  );
}

/**
 * Memory capacity in bytes the kubelet will report: SizeInMiB (less 64 MiB on arm64), less
 * ceil(bytes × vmMemoryOverheadPercent) MiB. The float arithmetic is the same IEEE-754 sequence
 * upstream's Go runs, so results match bit for bit.
 */
export function memoryCapacityBytes(
  it: Pick<InstanceTypeRecord, 'memoryMiB' | 'arch'>,
  vmMemoryOverheadPercent = DefaultVMMemoryOverheadPercent,
): number {
  const mib = it.memoryMiB - (it.arch === 'arm64' ? Arm64CmaReservedMiB : 0);
  const bytes = mib * MiB;
  const overheadMiB = Math.ceil((bytes * vmMemoryOverheadPercent) / 1024 / 1024);
  return bytes - overheadMiB * MiB;
}

/**
 * Default kube-reserved memory in bytes: (11 × pods + 255) MiB, where pods is the ENI-limited
 * count (reservedENIs 0) for AL2/AL2023/Custom even when maxPods is overridden, and the effective
 * max pods for Bottlerocket and Windows.
 */
export function kubeReservedMemoryBytes(
  it: InstanceTypeRecord,
  family: AMIFamily,
  effectiveMaxPods: number,
): number {
  const pods =
    family === 'Bottlerocket' || isWindowsFamily(family)
      ? effectiveMaxPods
      : eniLimitedPods(it.eni);
  return (11 * pods + 255) * MiB;
}

/** Kube-reserved ephemeral storage by default: 1Gi. */
export const DefaultKubeReservedStorageBytes = GiB;

/** The device each family mounts kubelet/containerd state on, and its default size in bytes. */
export function ephemeralDevice(family: AMIFamily): { deviceName: string; defaultBytes: number } {
  switch (family) {
    case 'Bottlerocket':
      return { deviceName: '/dev/xvdb', defaultBytes: 20 * GiB };
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return { deviceName: '/dev/sda1', defaultBytes: 50 * GiB };
    default:
      return { deviceName: '/dev/xvda', defaultBytes: 20 * GiB };
  }
}

/** Inputs of {@link ephemeralStorageBytes}. */
export interface EphemeralStorageInput {
  readonly family: AMIFamily;
  readonly blockDeviceMappings?: readonly BlockDeviceMapping[];
  readonly instanceStorePolicy?: 'RAID0';
}

/**
 * Ephemeral storage capacity in bytes, first match wins: RAID0 instance store (TotalSizeInGB
 * decimal GB) when the type has NVMe storage; the `rootVolume: true` mapping's volumeSize; for
 * Custom the last mapping's volumeSize; the mapping on the family's ephemeral device; else the
 * family default (20Gi, Windows 50Gi). Throws QuantityError for an unparsable volumeSize.
 */
export function ephemeralStorageBytes(
  it: InstanceTypeRecord,
  input: EphemeralStorageInput,
): number {
  if (input.instanceStorePolicy === 'RAID0' && it.localNvmeGB !== undefined && it.localNvmeGB > 0) {
    return it.localNvmeGB * 1_000_000_000;
  }
  const mappings = input.blockDeviceMappings ?? [];
  const sized = (m: BlockDeviceMapping | undefined) =>
    m?.ebs?.volumeSize === undefined ? undefined : quantityToValue(parseQuantity(m.ebs.volumeSize));
  const root = sized(mappings.find((m) => m.rootVolume === true));
  if (root !== undefined) return root;
  const device = ephemeralDevice(input.family);
  if (input.family === 'Custom') return sized(mappings.at(-1)) ?? device.defaultBytes;
  return sized(mappings.find((m) => m.deviceName === device.deviceName)) ?? device.defaultBytes;
}

/**
 * Eviction threshold: memory 100Mi and ephemeral storage ceil(storage / 100 × 10) by default;
 * `evictionHard["memory.available"]` and `["nodefs.available"]` replace them (a percentage means
 * ceil(capacity / 100 × p), 100% means 0; "" is unset). evictionSoft does not count, per the
 * reference notes.
 */
export function evictionThreshold(
  memoryBytes: number,
  storageBytes: number,
  kubelet?: KubeletConfiguration,
): { memory: number; 'ephemeral-storage': number } {
  const hard = kubelet?.evictionHard ?? {};
  // An empty threshold (the CRD's pattern allows "", as upstream's does) sets nothing: the
  // default applies.
  const memory = hard['memory.available'] || undefined;
  const nodefs = hard['nodefs.available'] || undefined;
  return {
    memory: memory === undefined ? DefaultEvictionMemoryBytes : evictionSignal(memoryBytes, memory),
    'ephemeral-storage':
      nodefs === undefined
        ? Math.ceil((storageBytes / 100) * DefaultEvictionStoragePercent)
        : evictionSignal(storageBytes, nodefs),
  };
}

/** A quantity, or a percentage of `capacity` rounded up (100% disables the signal: 0). */
export function evictionSignal(capacity: number, value: string): number {
  const text = value.trim();
  if (text.endsWith('%')) {
    const percent = Number(text.slice(0, -1));
    if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
      throw new RangeError(`eviction threshold ${JSON.stringify(value)} is not a percentage 0–100`);
    }
    return percent === 100 ? 0 : Math.ceil((capacity / 100) * percent);
  }
  return quantityToValue(parseQuantity(text));
}

/**
 * A kubelet reserved map (`{cpu: "100m", memory: "1Gi", …}`) as canonical integers: cpu in
 * millicores, everything else in base units. `pid` is kept as a count. Throws QuantityError for
 * unparsable values.
 */
export function reservedResources(
  map: Readonly<Record<string, string>> | undefined,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(map ?? {})) {
    const q = parseQuantity(value);
    out[name] = name === 'cpu' ? quantityToMilli(q) : quantityToValue(q);
  }
  return out;
}
