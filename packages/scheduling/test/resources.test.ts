import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addResources,
  fits,
  formatResourceList,
  isZero,
  maxResources,
  resourceListFromQuantities,
  ResourceListError,
  resourceNames,
  subtractResources,
  type ResourceList,
} from '../src/index.js';

describe('resourceListFromQuantities', () => {
  it('keeps cpu in millicores and everything else in base units', () => {
    expect(
      resourceListFromQuantities({
        cpu: '1500m',
        memory: '1.5Gi',
        'ephemeral-storage': '10G',
        pods: 110,
        'hugepages-2Mi': '4Mi',
        'nvidia.com/gpu': '1',
      }),
    ).toEqual({
      cpu: 1500,
      memory: 1_610_612_736,
      'ephemeral-storage': 10_000_000_000,
      pods: 110,
      'hugepages-2Mi': 4_194_304,
      'nvidia.com/gpu': 1,
    });
  });

  it('rounds up like Kubernetes: 0.1m cpu is 1 millicore, 100m of memory is 1 byte', () => {
    expect(resourceListFromQuantities({ cpu: '0.1m', memory: '100m' })).toEqual({
      cpu: 1,
      memory: 1,
    });
    expect(resourceListFromQuantities({ cpu: 2 })).toEqual({ cpu: 2000 });
  });

  it('names the resource whose quantity is invalid', () => {
    expect(() => resourceListFromQuantities({ cpu: '1', memory: '1GB' })).toThrow(
      ResourceListError,
    );
    expect(() => resourceListFromQuantities({ cpu: '1', memory: '1GB' })).toThrow(
      /resource "memory": invalid quantity "1GB"/,
    );
  });

  it('names the resource whose value exceeds the safe integer range', () => {
    expect(() => resourceListFromQuantities({ memory: '9Ei' })).toThrow(
      /resource "memory".*MAX_SAFE_INTEGER/,
    );
  });
});

describe('formatResourceList', () => {
  it('prints cpu as cores or millicores and memory as Gi/Mi when exact', () => {
    expect(
      formatResourceList({
        cpu: 1500,
        memory: 1_610_612_736,
        'ephemeral-storage': 20 * 1024 ** 3,
        'hugepages-1Gi': 0,
        pods: 110,
      }),
    ).toEqual({
      cpu: '1500m',
      memory: '1536Mi',
      'ephemeral-storage': '20Gi',
      'hugepages-1Gi': '0',
      pods: '110',
    });
    expect(formatResourceList({ cpu: 2000, memory: 1000 })).toEqual({ cpu: '2', memory: '1000' });
    expect(formatResourceList({ cpu: -500 })).toEqual({ cpu: '-500m' });
  });

  it('round-trips through resourceListFromQuantities', () => {
    const arb = fc.dictionary(
      fc.constantFrom('cpu', 'memory', 'pods', 'nvidia.com/gpu', 'ephemeral-storage'),
      fc.oneof(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 4096 }).map((n) => n * 1024 ** 2),
      ),
    );
    fc.assert(
      fc.property(arb, (rl) => {
        expect(resourceListFromQuantities(formatResourceList(rl))).toEqual(rl);
      }),
    );
  });
});

describe('resource arithmetic', () => {
  const a: ResourceList = { cpu: 1000, memory: 2048 };
  const b: ResourceList = { cpu: 500, pods: 1 };

  it('adds key by key, missing keys counting as zero', () => {
    expect(addResources(a, b)).toEqual({ cpu: 1500, memory: 2048, pods: 1 });
    expect(addResources()).toEqual({});
  });

  it('subtracts over the keys of the left side, possibly going negative', () => {
    expect(subtractResources(b, a)).toEqual({ cpu: -500, pods: 1 });
    expect(subtractResources(a, b)).toEqual({ cpu: 500, memory: 2048 });
  });

  it('takes the maximum per key', () => {
    expect(maxResources(a, b, { cpu: 200 })).toEqual({ cpu: 1000, memory: 2048, pods: 1 });
  });

  it('never mutates its inputs', () => {
    const before = JSON.stringify([a, b]);
    addResources(a, b);
    subtractResources(a, b);
    maxResources(a, b);
    expect(JSON.stringify([a, b])).toBe(before);
  });

  it('isZero and resourceNames', () => {
    expect(isZero({})).toBe(true);
    expect(isZero({ cpu: 0, memory: 0 })).toBe(true);
    expect(isZero({ cpu: 0, memory: 1 })).toBe(false);
    expect(resourceNames(b, a)).toEqual(['cpu', 'memory', 'pods']);
  });
});

describe('fits', () => {
  const table: [string, ResourceList, ResourceList, boolean][] = [
    ['requests below available', { cpu: 500 }, { cpu: 1000, memory: 10 }, true],
    ['requests equal to available', { cpu: 1000, memory: 10 }, { cpu: 1000, memory: 10 }, true],
    ['one resource over', { cpu: 1001 }, { cpu: 1000 }, false],
    [
      'a resource missing from available counts as zero',
      { 'nvidia.com/gpu': 1 },
      { cpu: 1000 },
      false,
    ],
    ['a zero request of a missing resource fits', { 'nvidia.com/gpu': 0 }, { cpu: 1000 }, true],
    ['any negative available total fails', {}, { cpu: 1000, memory: -1 }, false],
    ['empty requests fit', {}, {}, true],
  ];
  it.each(table)('%s', (_name, requests, available, expected) => {
    expect(fits(requests, available)).toBe(expected);
  });

  it('agrees with subtracting: what fits leaves nothing negative', () => {
    const arb = fc.dictionary(fc.constantFrom('cpu', 'memory', 'pods'), fc.nat(100));
    fc.assert(
      fc.property(arb, arb, (req, avail) => {
        const left = subtractResources(avail, req);
        const expected = Object.keys(req).every((k) => (req[k] ?? 0) <= (avail[k] ?? 0));
        expect(fits(req, avail)).toBe(expected);
        if (expected) expect(Object.values(left).every((v) => v >= 0)).toBe(true);
      }),
    );
  });
});
