/**
 * The 144 generic instance types of upstream's KWOK provider (kubernetes-sigs/karpenter
 * kwok/): every combination of
 * cpu ∈ {1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256} cores, memory factor 2 (family `c`),
 * 4 (`s`) or 8 (`m`) GiB per core, os linux or windows, and arch amd64 or arm64.
 */
import { Requirements } from '@karpenter-ts/scheduling';
import { createInstanceType } from './instancetype.js';
import { createOffering } from './offering.js';
import type { CapacityType, InstanceType, Offering } from './types.js';
import { GB, GiB, MiB } from './units.js';

/** Label keys KWOK adds to its instance types (domain `karpenter.kwok.sh`). */
export const KwokLabels = {
  InstanceSize: 'karpenter.kwok.sh/instance-size',
  InstanceFamily: 'karpenter.kwok.sh/instance-family',
  InstanceCPU: 'karpenter.kwok.sh/instance-cpu',
  InstanceMemory: 'karpenter.kwok.sh/instance-memory',
} as const;

/**
 * The sim cloud's well-known labels (upstream KWOK adds its labels to `v1.WellKnownLabels`):
 * pods may require them although no NodePool mentions them; pass them to the scheduler
 * (`SchedulerOptions.wellKnownLabels`).
 */
export const KwokWellKnownLabels: ReadonlySet<string> = new Set(Object.values(KwokLabels));

/** The four zones of the KWOK catalog. */
export const KwokZones: readonly string[] = [
  'test-zone-a',
  'test-zone-b',
  'test-zone-c',
  'test-zone-d',
];

const CpuCounts = [1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256] as const;
const MemoryFactors: readonly { gibPerCore: number; family: string }[] = [
  { gibPerCore: 2, family: 'c' },
  { gibPerCore: 4, family: 's' },
  { gibPerCore: 8, family: 'm' },
];

/** KWOK pricing: 0.025 USD/h per core plus 0.001 USD/h per decimal GB of memory (on-demand). */
export function kwokPrice(cores: number, memoryBytes: number): number {
  return 0.025 * cores + 0.001 * (memoryBytes / GB);
}

/** Spot price factor of the KWOK (and upstream fake) catalogs: spot costs 0.7 × on-demand. */
export const KwokSpotDiscount = 0.7;

/**
 * The 144 KWOK instance types, named `<family>-<cores>x-<arch>-<os>` (e.g. `c-4x-amd64-linux`):
 * pods = min(16 × cores, 1024); 20Gi ephemeral storage; kube-reserved 100m cpu and 10Mi memory;
 * offerings spot and on-demand in each of {@link KwokZones}, on-demand at {@link kwokPrice} and
 * spot at 0.7 × that; labels `karpenter.kwok.sh/instance-{size,family,cpu,memory}` (memory in
 * MiB). A fresh array of fresh objects on every call.
 */
export function kwokInstanceTypes(): InstanceType[] {
  const types: InstanceType[] = [];
  for (const cores of CpuCounts) {
    for (const { gibPerCore, family } of MemoryFactors) {
      for (const os of ['linux', 'windows']) {
        for (const arch of ['amd64', 'arm64']) {
          const memory = cores * gibPerCore * GiB;
          const price = kwokPrice(cores, memory);
          const name = `${family}-${cores}x-${arch}-${os}`;
          const offerings: Offering[] = [];
          for (const zone of KwokZones) {
            for (const capacityType of ['spot', 'on-demand'] as CapacityType[]) {
              offerings.push(
                createOffering({
                  zone,
                  capacityType,
                  price: capacityType === 'spot' ? price * KwokSpotDiscount : price,
                }),
              );
            }
          }
          types.push(
            createInstanceType({
              name,
              requirements: Requirements.fromNodeSelectorRequirements([
                { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [name] },
                { key: 'kubernetes.io/arch', operator: 'In', values: [arch] },
                { key: 'kubernetes.io/os', operator: 'In', values: [os] },
                { key: 'topology.kubernetes.io/zone', operator: 'In', values: [...KwokZones] },
                {
                  key: 'karpenter.sh/capacity-type',
                  operator: 'In',
                  values: ['spot', 'on-demand'],
                },
                { key: KwokLabels.InstanceSize, operator: 'In', values: [`${cores}x`] },
                { key: KwokLabels.InstanceFamily, operator: 'In', values: [family] },
                { key: KwokLabels.InstanceCPU, operator: 'In', values: [String(cores)] },
                {
                  key: KwokLabels.InstanceMemory,
                  operator: 'In',
                  values: [String(memory / MiB)],
                },
              ]),
              offerings,
              capacity: {
                cpu: cores * 1000,
                memory,
                pods: Math.min(16 * cores, 1024),
                'ephemeral-storage': 20 * GiB,
              },
              overhead: { kubeReserved: { cpu: 100, memory: 10 * MiB } },
            }),
          );
        }
      }
    }
  }
  return types;
}
