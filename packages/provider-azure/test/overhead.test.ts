import { describe, expect, it } from 'vitest';
import {
  EVICTION_MEMORY_AVAILABLE_BYTES,
  armSkuRecords,
  kubeReservedCPUMillicores,
  kubeReservedMemoryBytes,
  memoryCapacityBytes,
} from '../src/index.js';

const MiB = 2 ** 20;

describe('AKS kube-reserved CPU', () => {
  it.each([
    [1, 60],
    [2, 100],
    [4, 140],
    [8, 180],
    [16, 260],
    [32, 420],
    [64, 740],
  ])('reserves the AKS table figure for %i vCPUs (%i millicores)', (vcpus, millicores) => {
    expect(kubeReservedCPUMillicores(vcpus)).toBe(millicores);
  });
});

describe('AKS kube-reserved memory', () => {
  it.each([
    [7, 1638],
    [8, 1843],
    [64, 5611],
  ])('reserves the bracketed share of %i GiB (%i MiB)', (gib, mib) => {
    expect(kubeReservedMemoryBytes(gib)).toBe(mib * MiB);
  });

  it('brackets fractional GiB before truncating to whole MiB (218.75 GiB -> 11402 MiB)', () => {
    expect(kubeReservedMemoryBytes(218.75)).toBe(11402 * MiB);
  });
});

describe('memory capacity after the VM overhead', () => {
  it('floors GiB, then removes ceil(7.5%) of the bytes', () => {
    const bytes = 8 * 2 ** 30;
    expect(memoryCapacityBytes(8)).toBe(bytes - Math.ceil(bytes * 0.075));
    expect(memoryCapacityBytes(218.75)).toBe(216520038809);
  });

  it('honours a different VM_MEMORY_OVERHEAD_PERCENT', () => {
    expect(memoryCapacityBytes(4, 0)).toBe(4 * 2 ** 30);
    expect(memoryCapacityBytes(4, 0.1)).toBe(4 * 2 ** 30 - Math.ceil(4 * 2 ** 30 * 0.1));
  });
});

describe('accuracy against the provider figures in vm-skus.json', () => {
  const skus = armSkuRecords();

  it('reproduces kube-reserved, eviction, capacity and allocatable for every SKU exactly', () => {
    const mismatches: string[] = [];
    for (const s of skus) {
      const o = s.overhead;
      if (!o) throw new Error(`${s.name} has no reference figures`);
      const reservedCPU = kubeReservedCPUMillicores(s.vCPUs);
      const reservedMem = kubeReservedMemoryBytes(s.memoryGiB);
      const capacity = memoryCapacityBytes(s.memoryGiB);
      const got = {
        kubeReservedCPUm: reservedCPU,
        kubeReservedMemoryMi: reservedMem / MiB,
        evictionMemoryMi: EVICTION_MEMORY_AVAILABLE_BYTES / MiB,
        capacityMemoryBytes: capacity,
        allocatableCPUm: s.vCPUs * 1000 - reservedCPU,
        allocatableMemoryBytes: capacity - reservedMem - EVICTION_MEMORY_AVAILABLE_BYTES,
      };
      if (JSON.stringify(got) !== JSON.stringify(o))
        mismatches.push(`${s.name}: ${JSON.stringify(got)} vs ${JSON.stringify(o)}`);
    }
    expect(mismatches).toEqual([]);
    expect(skus).toHaveLength(20);
  });
});
