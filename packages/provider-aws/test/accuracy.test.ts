/**
 * Accuracy gate: for every instance type in data/instance-types.json, the allocatable we compute
 * under the docs-table assumptions (AL2023, 20Gi root volume, vmMemoryOverheadPercent 0.075,
 * reservedENIs 0, no kubelet overrides) equals the figure upstream publishes.
 */
import { computeAllocatable } from '@karpenter-ts/cloudprovider';
import { describe, expect, it } from 'vitest';
import {
  awsCapacity,
  awsOverhead,
  defaultEC2NodeClass,
  getAwsInstanceTypes,
  shippedAwsCatalog,
  type InstanceTypeRecord,
} from '../src/index.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const records = shippedAwsCatalog().instanceTypes;
const nodeClass = defaultEC2NodeClass();

function computed(record: InstanceTypeRecord) {
  const capacity = awsCapacity(record, nodeClass);
  const allocatable = computeAllocatable(capacity, awsOverhead(record, capacity, nodeClass));
  return {
    cpuMillis: allocatable.cpu,
    memoryMiB: (allocatable.memory ?? 0) / MiB,
    ephemeralStorageGiB: (allocatable['ephemeral-storage'] ?? 0) / GiB,
    pods: allocatable.pods,
  };
}

function published(record: InstanceTypeRecord) {
  const a = record.allocatable!;
  return {
    cpuMillis: a.cpuMillis,
    memoryMiB: a.memoryMiB,
    ephemeralStorageGiB: a.ephemeralStorageGiB,
    pods: a.pods,
  };
}

describe('allocatable accuracy against the published docs table', () => {
  it('covers all 1,363 instance types', () => {
    expect(records).toHaveLength(1363);
    expect(records.every((r) => r.allocatable !== undefined)).toBe(true);
  });

  it.each(records.map((r) => [r.name, r] as const))(
    '%s: cpu, memory, pods, ephemeral-storage',
    (_, record) => {
      expect(computed(record)).toEqual(published(record));
    },
  );

  it('matches every type (count reported)', () => {
    const matching = records.filter(
      (r) => JSON.stringify(computed(r)) === JSON.stringify(published(r)),
    ).length;
    console.info(
      `allocatable accuracy: ${matching}/${records.length} instance types match exactly`,
    );
    expect(matching).toBe(1363);
  });

  it('gives the same figures through getAwsInstanceTypes in every recorded region', () => {
    const byName = new Map(records.map((r) => [r.name, r]));
    const seen = new Set<string>();
    for (const region of ['us-east-1', 'us-east-2', 'us-west-2']) {
      for (const it of getAwsInstanceTypes({ region })) {
        const r = byName.get(it.name)!;
        const a = it.allocatable();
        expect([a.cpu, a.memory, a.pods, a['ephemeral-storage']]).toEqual([
          r.allocatable!.cpuMillis,
          r.allocatable!.memoryMiB * MiB,
          r.allocatable!.pods,
          r.allocatable!.ephemeralStorageGiB * GiB,
        ]);
        seen.add(it.name);
      }
    }
    expect(seen.size).toBe(1363);
  });

  it('advertises the published extended resources', () => {
    const resourceOf = {
      podEni: 'vpc.amazonaws.com/pod-eni',
      efa: 'vpc.amazonaws.com/efa',
      nvidiaGpu: 'nvidia.com/gpu',
      amdGpu: 'amd.com/gpu',
      neuron: 'aws.amazon.com/neuron',
      neuronCore: 'aws.amazon.com/neuroncore',
      habanaGaudi: 'habana.ai/gaudi',
    } as const;
    let checked = 0;
    for (const record of records) {
      const capacity = awsCapacity(record, nodeClass);
      for (const [field, resource] of Object.entries(resourceOf)) {
        const want = record.allocatable![field as keyof typeof resourceOf];
        if (want === undefined) continue;
        expect(capacity[resource], `${record.name} ${resource}`).toBe(want);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
