import { Requirements } from '@karpenter-ts/scheduling';
import { describe, expect, it } from 'vitest';
import { GiB, MiB, computeAllocatable, createInstanceType, totalOverhead } from '../src/index.js';

const requirements = Requirements.fromLabels({ 'node.kubernetes.io/instance-type': 'test' });

describe('createInstanceType', () => {
  it('computes allocatable as capacity minus kube-reserved, system-reserved and eviction threshold', () => {
    const it_ = createInstanceType({
      name: 'test',
      requirements,
      offerings: [],
      capacity: { cpu: 4000, memory: 16 * GiB, pods: 110, 'ephemeral-storage': 20 * GiB },
      overhead: {
        kubeReserved: { cpu: 80, memory: 1 * GiB, 'ephemeral-storage': 1 * GiB },
        systemReserved: { cpu: 100, memory: 100 * MiB },
        evictionThreshold: { memory: 100 * MiB, 'ephemeral-storage': 2 * GiB },
      },
    });
    expect(it_.allocatable()).toEqual({
      cpu: 3820,
      memory: 16 * GiB - 1 * GiB - 200 * MiB,
      pods: 110,
      'ephemeral-storage': 17 * GiB,
    });
  });

  it('floors every resource at zero when the overhead exceeds the capacity', () => {
    const it_ = createInstanceType({
      name: 'tiny',
      requirements,
      offerings: [],
      capacity: { cpu: 100, memory: 64 * MiB },
      overhead: { kubeReserved: { cpu: 200, memory: 128 * MiB, 'ephemeral-storage': GiB } },
    });
    expect(it_.allocatable()).toEqual({ cpu: 0, memory: 0 });
  });

  it('takes hugepages capacity out of memory as upstream does', () => {
    const it_ = createInstanceType({
      name: 'huge',
      requirements,
      offerings: [],
      capacity: { memory: 8 * GiB, 'hugepages-2Mi': 1 * GiB, 'hugepages-1Gi': 2 * GiB },
      overhead: { evictionThreshold: { memory: 100 * MiB } },
    });
    expect(it_.allocatable()).toEqual({
      memory: 8 * GiB - 100 * MiB - 3 * GiB,
      'hugepages-2Mi': 1 * GiB,
      'hugepages-1Gi': 2 * GiB,
    });
  });

  it('memoizes allocatable', () => {
    const it_ = createInstanceType({
      name: 'm',
      requirements,
      offerings: [],
      capacity: { cpu: 1000 },
    });
    expect(it_.allocatable()).toBe(it_.allocatable());
  });

  it('defaults missing overhead parts to empty lists', () => {
    const it_ = createInstanceType({
      name: 'm',
      requirements,
      offerings: [],
      capacity: { cpu: 1000 },
    });
    expect(it_.overhead).toEqual({ kubeReserved: {}, systemReserved: {}, evictionThreshold: {} });
    expect(it_.allocatable()).toEqual({ cpu: 1000 });
  });

  it('rejects fractional or negative quantities, naming the resource', () => {
    expect(() =>
      createInstanceType({ name: 'bad', requirements, offerings: [], capacity: { cpu: 1.5 } }),
    ).toThrow('bad capacity: cpu must be a non-negative integer, got 1.5');
    expect(() =>
      createInstanceType({
        name: 'bad',
        requirements,
        offerings: [],
        capacity: { cpu: 1000 },
        overhead: { systemReserved: { memory: -1 } },
      }),
    ).toThrow(/overhead.systemReserved: memory/);
    expect(() =>
      createInstanceType({ name: '', requirements, offerings: [], capacity: {} }),
    ).toThrow(/name/);
  });
});

describe('totalOverhead and computeAllocatable', () => {
  it('sums the three overhead lists key by key', () => {
    expect(
      totalOverhead({
        kubeReserved: { cpu: 10, memory: 1 },
        systemReserved: { cpu: 5 },
        evictionThreshold: { memory: 2, pid: 3 },
      }),
    ).toEqual({ cpu: 15, memory: 3, pid: 3 });
  });

  it('ignores overhead for resources the capacity does not have', () => {
    expect(
      computeAllocatable(
        { cpu: 1000 },
        { kubeReserved: { pid: 100 }, systemReserved: {}, evictionThreshold: {} },
      ),
    ).toEqual({ cpu: 1000 });
  });
});
