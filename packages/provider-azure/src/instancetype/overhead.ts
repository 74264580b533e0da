/**
 * AKS node overhead: what the kubelet reserves and the VM memory the hypervisor keeps, in
 * canonical integer units (cpu millicores, memory bytes). Follows upstream's scheme
 * (`Azure/karpenter-provider-azure`), which is AKS's pre-1.29 reservation table applied to every
 * Kubernetes version.
 *
 * The bracket sums are computed with IEEE doubles in bracket order and then truncated, exactly
 * as upstream does, so the integer results match AKS's figures bit for bit (an exact-rational
 * sum could differ by one MiB where the double sum lands just below an integer).
 */

/** One tax bracket: `rate` applies to the part of the amount up to `upperBound`. */
interface Bracket {
  readonly upperBound: number;
  readonly rate: number;
}

/** kube-reserved memory brackets over total GiB. */
const MEMORY_BRACKETS_GIB: readonly Bracket[] = [
  { upperBound: 4, rate: 0.25 },
  { upperBound: 8, rate: 0.2 },
  { upperBound: 16, rate: 0.1 },
  { upperBound: 128, rate: 0.06 },
  { upperBound: Number.MAX_VALUE, rate: 0.02 },
];

/** kube-reserved CPU brackets over vCPU count. */
const CPU_BRACKETS_CORES: readonly Bracket[] = [
  { upperBound: 1, rate: 0.06 },
  { upperBound: 2, rate: 0.04 },
  { upperBound: 4, rate: 0.02 },
  { upperBound: Number.MAX_VALUE, rate: 0.01 },
];

function bracketSum(brackets: readonly Bracket[], amount: number): number {
  let sum = 0;
  let lower = 0;
  for (const { upperBound, rate } of brackets) {
    if (lower > amount) continue;
    sum += (Math.min(upperBound, amount) - lower) * rate;
    lower = upperBound;
  }
  return sum;
}

const MIB = 2 ** 20;
const GIB = 2 ** 30;

/** Eviction threshold `memory.available` AKS sets: 750 MiB. */
export const EVICTION_MEMORY_AVAILABLE_BYTES = 750 * MIB;

/** Default share of VM memory the hypervisor keeps (`VM_MEMORY_OVERHEAD_PERCENT`). */
export const DEFAULT_VM_MEMORY_OVERHEAD_PERCENT = 0.075;

/** kube-reserved CPU in millicores for a vCPU count: 6% of core 1, 4% of core 2, 2% of cores 3-4, 1% above. */
export function kubeReservedCPUMillicores(vCPUs: number): number {
  return Math.trunc(1000 * bracketSum(CPU_BRACKETS_CORES, vCPUs));
}

/**
 * kube-reserved memory in bytes for a VM's memory in GiB (fractional GiB allowed): 25% of the first
 * 4 GiB, 20% of the next 4, 10% of the next 8, 6% up to 128 GiB, 2% above; truncated to whole MiB.
 */
export function kubeReservedMemoryBytes(memoryGiB: number): number {
  return Math.trunc(1024 * bracketSum(MEMORY_BRACKETS_GIB, memoryGiB)) * MIB;
}

/**
 * Memory capacity the kubelet reports, in bytes: floor(memoryGiB) GiB minus
 * ceil(that × overheadPercent). Upstream floors GiB before the cut, so sizes under 1 GiB get 0.
 */
export function memoryCapacityBytes(
  memoryGiB: number,
  overheadPercent = DEFAULT_VM_MEMORY_OVERHEAD_PERCENT,
): number {
  const bytes = Math.trunc(memoryGiB) * GIB;
  return bytes - Math.ceil(bytes * overheadPercent);
}
