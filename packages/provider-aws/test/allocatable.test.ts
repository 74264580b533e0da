import { describe, expect, it } from 'vitest';
import {
  eniLimitedPods,
  evictionSignal,
  evictionThreshold,
  kubeReservedCpuMillicores,
  memoryCapacityBytes,
  resolveAMIFamily,
} from '../src/index.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('EKS allocatable math', () => {
  it('reserves cpu in slices: 6%, 1%, 0.5%, 0.25%', () => {
    expect([1, 2, 4, 8, 96].map((vcpu) => kubeReservedCpuMillicores(vcpu * 1000))).toEqual([
      60, 70, 80, 90, 310,
    ]);
    expect(kubeReservedCpuMillicores(500)).toBe(30);
  });

  it('computes ENI-limited pods from the default network card', () => {
    expect(eniLimitedPods({ maxEnis: 3, ipv4PerEni: 10 })).toBe(29);
    expect(eniLimitedPods({ maxEnis: 3, ipv4PerEni: 10 }, { reservedENIs: 1 })).toBe(20);
    expect(eniLimitedPods({ maxEnis: 2, ipv4PerEni: 4 }, { reservedENIs: 2 })).toBe(0);
    expect(eniLimitedPods({ maxEnis: 15, ipv4PerEni: 50 }, { efaOnlyInterfacesOnCard0: 1 })).toBe(
      688,
    );
  });

  it('takes the VM overhead off memory, and 64 MiB more on arm64', () => {
    expect(memoryCapacityBytes({ memoryMiB: 8192, arch: 'amd64' })).toBe((8192 - 615) * MiB);
    expect(memoryCapacityBytes({ memoryMiB: 8192, arch: 'arm64' })).toBe(
      (8128 - Math.ceil(8128 * 0.075)) * MiB,
    );
  });

  it('defaults the eviction threshold to 100Mi and 10% of storage', () => {
    expect(evictionThreshold(8 * GiB, 20 * GiB)).toEqual({
      memory: 100 * MiB,
      'ephemeral-storage': 2 * GiB,
    });
  });

  it('reads eviction signals as quantities or percentages', () => {
    expect(evictionSignal(1000, '5%')).toBe(50);
    expect(evictionSignal(1001, '10%')).toBe(101);
    expect(evictionSignal(1000, '100%')).toBe(0);
    expect(evictionSignal(1000, '500Mi')).toBe(500 * MiB);
    expect(() => evictionSignal(1000, '150%')).toThrow(/percentage/);
  });

  it('resolves the AMI family from amiFamily, else the alias', () => {
    expect(resolveAMIFamily({ amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] })).toBe(
      'Bottlerocket',
    );
    expect(
      resolveAMIFamily({ amiSelectorTerms: [{ alias: 'al2023@latest' }], amiFamily: 'Custom' }),
    ).toBe('Custom');
    expect(resolveAMIFamily({ amiSelectorTerms: [{ id: 'ami-1' }], amiFamily: 'AL2' })).toBe('AL2');
  });
});
