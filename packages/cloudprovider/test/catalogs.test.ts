import { describe, expect, it } from 'vitest';
import { GiB, MiB, fakeInstanceTypes, fakePrice, kwokInstanceTypes } from '../src/index.js';

describe('fakeInstanceTypes (the scheduling benchmark catalog)', () => {
  const types = fakeInstanceTypes(400);

  it('makes n types named fake-it-<i> with i+1 cores, 2(i+1) GiB and 10(i+1) pods', () => {
    expect(types).toHaveLength(400);
    const t7 = types[7]!;
    expect(t7.name).toBe('fake-it-7');
    expect(t7.capacity).toEqual({ cpu: 8000, memory: 16 * GiB, pods: 80 });
    expect(types[399]!.capacity).toEqual({ cpu: 400_000, memory: 800 * GiB, pods: 4000 });
  });

  it('reserves 100m cpu and 10Mi memory', () => {
    expect(types[0]!.allocatable()).toEqual({ cpu: 900, memory: 2 * GiB - 10 * MiB, pods: 10 });
  });

  it('offers spot in zones 1-2 and on-demand in zones 1-3, all at 0.1/core + 0.1/GB', () => {
    const t = types[3]!;
    expect(t.offerings.map((o) => `${o.capacityType}/${o.zone}`)).toEqual([
      'spot/test-zone-1',
      'spot/test-zone-2',
      'on-demand/test-zone-1',
      'on-demand/test-zone-2',
      'on-demand/test-zone-3',
    ]);
    const price = 0.1 * 4 + 0.1 * ((8 * GiB) / 1e9);
    expect(t.offerings.every((o) => o.available && o.price === price)).toBe(true);
    expect(fakePrice(4000, 8 * GiB)).toBe(price);
  });

  it('labels types with more than 4 cores and 8Gi as large and special', () => {
    const small = types[3]!; // 4 cores, 8Gi: not more than 4 / 8Gi
    const large = types[4]!; // 5 cores, 10Gi
    expect(small.requirements.get('size').valuesList()).toEqual(['small']);
    expect(small.requirements.get('special').operator()).toBe('DoesNotExist');
    expect(large.requirements.get('size').valuesList()).toEqual(['large']);
    expect(large.requirements.get('special').valuesList()).toEqual(['optional']);
    expect(large.requirements.get('integer').valuesList()).toEqual(['5']);
  });

  it('is amd64 with linux, windows and darwin', () => {
    expect(types[0]!.requirements.get('kubernetes.io/arch').valuesList()).toEqual(['amd64']);
    expect(types[0]!.requirements.get('kubernetes.io/os').valuesList()).toEqual([
      'darwin',
      'linux',
      'windows',
    ]);
  });

  it('rejects a negative count', () => {
    expect(() => fakeInstanceTypes(-1)).toThrow(RangeError);
    expect(fakeInstanceTypes(0)).toEqual([]);
  });
});

describe('kwokInstanceTypes', () => {
  const types = kwokInstanceTypes();

  it('has 144 uniquely named types', () => {
    expect(types).toHaveLength(144);
    expect(new Set(types.map((t) => t.name)).size).toBe(144);
  });

  it('sizes a type from its cores and memory factor, capping pods at 1024', () => {
    const c4 = types.find((t) => t.name === 'c-4x-amd64-linux')!;
    expect(c4.capacity).toEqual({
      cpu: 4000,
      memory: 8 * GiB,
      pods: 64,
      'ephemeral-storage': 20 * GiB,
    });
    const m256 = types.find((t) => t.name === 'm-256x-arm64-windows')!;
    expect(m256.capacity.pods).toBe(1024);
    expect(m256.capacity.memory).toBe(2048 * GiB);
    expect(m256.requirements.get('kubernetes.io/os').valuesList()).toEqual(['windows']);
    expect(m256.requirements.get('karpenter.kwok.sh/instance-memory').valuesList()).toEqual([
      String(2048 * 1024),
    ]);
  });

  it('prices spot at 0.7 × on-demand in four zones', () => {
    const s8 = types.find((t) => t.name === 's-8x-amd64-linux')!;
    const od = 0.025 * 8 + 0.001 * ((32 * GiB) / 1e9);
    expect(s8.offerings).toHaveLength(8);
    for (const o of s8.offerings)
      expect(o.price).toBeCloseTo(o.capacityType === 'spot' ? od * 0.7 : od, 12);
    expect(new Set(s8.offerings.map((o) => o.zone))).toEqual(
      new Set(['test-zone-a', 'test-zone-b', 'test-zone-c', 'test-zone-d']),
    );
  });

  it('labels family, size and cpu', () => {
    const c1 = types.find((t) => t.name === 'c-1x-arm64-linux')!;
    expect(c1.requirements.labels()).toMatchObject({
      'karpenter.kwok.sh/instance-family': 'c',
      'karpenter.kwok.sh/instance-size': '1x',
      'karpenter.kwok.sh/instance-cpu': '1',
      'kubernetes.io/arch': 'arm64',
    });
  });
});
