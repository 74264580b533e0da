/**
 * The instance types of upstream's fake cloud provider generator `InstanceTypes(n)`
 * (kubernetes-sigs/karpenter pkg/cloudprovider/fake/instancetype.go), which its scheduling
 * benchmark uses; specified in docs shared/bench/scheduling-benchmark.md. Our benchmark builds
 * the same catalog so node counts and speeds compare side by side.
 */
import { Requirements } from '@karpenter-ts/scheduling';
import { createInstanceType } from './instancetype.js';
import { createOffering } from './offering.js';
import type { CapacityType, InstanceType } from './types.js';
import { GB, GiB, MiB } from './units.js';

/** Label the fake catalog sets to `large` (cpu > 4 and memory > 8Gi) or `small`. */
export const FakeSizeLabel = 'size';
/** Label that exists (value `optional`) only on large fake instance types. */
export const FakeSpecialLabel = 'special';
/** Label holding the fake instance type's cpu count in cores. */
export const FakeIntegerLabel = 'integer';

/** The five offerings of every fake instance type, in upstream's order. */
export const FakeOfferingSlots: readonly { zone: string; capacityType: CapacityType }[] = [
  { zone: 'test-zone-1', capacityType: 'spot' },
  { zone: 'test-zone-2', capacityType: 'spot' },
  { zone: 'test-zone-1', capacityType: 'on-demand' },
  { zone: 'test-zone-2', capacityType: 'on-demand' },
  { zone: 'test-zone-3', capacityType: 'on-demand' },
];

/** Upstream fake pricing: 0.1 USD/h per core plus 0.1 USD/h per decimal GB of memory. */
export function fakePrice(cpuMillicores: number, memoryBytes: number): number {
  return 0.1 * (cpuMillicores / 1000) + 0.1 * (memoryBytes / GB);
}

/**
 * `n` instance types `fake-it-0` … `fake-it-<n-1>`: type i has i+1 cores, 2(i+1) GiB memory and
 * 10(i+1) pods; amd64; os linux, windows and darwin; kube-reserved 100m cpu and 10Mi memory;
 * five available offerings (spot in test-zone-1/2, on-demand in test-zone-1/2/3) all at
 * {@link fakePrice}; labels `size`, `special` and `integer` as upstream sets them. Throws
 * RangeError when `n` is not a non-negative integer.
 */
export function fakeInstanceTypes(n: number): InstanceType[] {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`n must be a non-negative integer, got ${n}`);
  const types: InstanceType[] = [];
  for (let i = 0; i < n; i++) {
    const cores = i + 1;
    const cpu = cores * 1000;
    const memory = 2 * cores * GiB;
    const price = fakePrice(cpu, memory);
    const offerings = FakeOfferingSlots.map((slot) => createOffering({ ...slot, price }));
    const large = cpu > 4000 && memory > 8 * GiB;
    const name = `fake-it-${i}`;
    types.push(
      createInstanceType({
        name,
        requirements: Requirements.fromNodeSelectorRequirements([
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [name] },
          { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          { key: 'kubernetes.io/os', operator: 'In', values: ['linux', 'windows', 'darwin'] },
          {
            key: 'topology.kubernetes.io/zone',
            operator: 'In',
            values: ['test-zone-1', 'test-zone-2', 'test-zone-3'],
          },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
          { key: FakeSizeLabel, operator: 'In', values: [large ? 'large' : 'small'] },
          large
            ? { key: FakeSpecialLabel, operator: 'In', values: ['optional'] }
            : { key: FakeSpecialLabel, operator: 'DoesNotExist' },
          { key: FakeIntegerLabel, operator: 'In', values: [String(cores)] },
        ]),
        offerings,
        capacity: { cpu, memory, pods: 10 * cores },
        overhead: { kubeReserved: { cpu: 100, memory: 10 * MiB } },
      }),
    );
  }
  return types;
}
