import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from '@karpenter-ts/scheduling';
import type { NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { describe, expect, it } from 'vitest';
import {
  AwsWellKnownLabels,
  defaultAwsNodePool,
  defaultEC2NodeClass,
  getAwsInstanceTypes,
  shippedAwsCatalog,
  type EC2NodeClass,
  type EC2NodeClassSpec,
} from '../src/index.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

function nodeClass(spec: Partial<EC2NodeClassSpec> = {}, zones?: string[]): EC2NodeClass {
  const nc = defaultEC2NodeClass();
  return {
    ...nc,
    spec: { ...nc.spec, ...spec },
    ...(zones === undefined
      ? {}
      : { status: { subnets: zones.map((zone, i) => ({ id: `subnet-${i}`, zone })) } }),
  };
}

function find(types: InstanceType[], name: string): InstanceType {
  const it = types.find((t) => t.name === name);
  if (it === undefined) throw new Error(`${name} not in catalog`);
  return it;
}

const useast1 = getAwsInstanceTypes({ region: 'us-east-1' });
const allowUndefined = new Set([...WELL_KNOWN_LABELS_ALLOW_UNDEFINED, ...AwsWellKnownLabels]);

/** Names of the instance types whose requirements are compatible with a NodePool's. */
function matching(
  types: InstanceType[],
  requirements: NodeSelectorRequirementWithMinValues[],
): string[] {
  const pool = Requirements.fromNodeSelectorRequirements(requirements);
  return types.filter((t) => t.requirements.isCompatible(pool, allowUndefined)).map((t) => t.name);
}

describe('labels of AWS instance types', () => {
  it('defines every well-known label for m5.large', () => {
    expect(find(useast1, 'm5.large').requirements.labels()).toEqual({
      'node.kubernetes.io/instance-type': 'm5.large',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/region': 'us-east-1',
      'karpenter.k8s.aws/instance-category': 'm',
      'karpenter.k8s.aws/instance-family': 'm5',
      'karpenter.k8s.aws/instance-generation': '5',
      'karpenter.k8s.aws/instance-size': 'large',
      'karpenter.k8s.aws/instance-capability-flex': 'false',
      'karpenter.k8s.aws/instance-cpu': '2',
      'karpenter.k8s.aws/instance-cpu-manufacturer': 'intel',
      'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz': '3100',
      'karpenter.k8s.aws/instance-memory': '8192',
      'karpenter.k8s.aws/instance-hypervisor': 'nitro',
      'karpenter.k8s.aws/instance-encryption-in-transit-supported': 'false',
      'karpenter.k8s.aws/instance-ebs-bandwidth': '4750',
      'karpenter.k8s.aws/instance-network-bandwidth': '750',
    });
    const reqs = find(useast1, 'm5.large').requirements;
    expect(reqs.get('topology.kubernetes.io/zone').valuesList()).toEqual([
      'us-east-1a',
      'us-east-1b',
      'us-east-1c',
      'us-east-1d',
      'us-east-1f',
    ]);
    expect(reqs.get('karpenter.sh/capacity-type').valuesList()).toEqual(['on-demand', 'spot']);
    for (const key of [
      'node.kubernetes.io/windows-build',
      'karpenter.k8s.aws/instance-local-nvme',
      'karpenter.k8s.aws/instance-gpu-name',
      'karpenter.k8s.aws/instance-gpu-count',
      'karpenter.k8s.aws/instance-accelerator-name',
    ]) {
      expect(reqs.get(key).operator(), key).toBe('DoesNotExist');
    }
  });

  it('labels GPUs, local NVMe, flex and bare metal', () => {
    const g4dn = find(useast1, 'g4dn.xlarge').requirements.labels();
    expect(g4dn).toMatchObject({
      'karpenter.k8s.aws/instance-gpu-name': 't4',
      'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
      'karpenter.k8s.aws/instance-gpu-count': '1',
      'karpenter.k8s.aws/instance-gpu-memory': '16384',
      'karpenter.k8s.aws/instance-local-nvme': '125',
    });
    expect(find(useast1, 'g4dn.xlarge').capacity['nvidia.com/gpu']).toBe(1);
    expect(find(useast1, 'm7i-flex.large').requirements.labels()).toMatchObject({
      'karpenter.k8s.aws/instance-capability-flex': 'true',
      'karpenter.k8s.aws/instance-family': 'm7i-flex',
    });
    expect(
      find(useast1, 'm5.metal').requirements.labels()['karpenter.k8s.aws/instance-hypervisor'],
    ).toBe('');
  });

  it('labels Neuron accelerators and advertises devices and cores', () => {
    const inf2 = find(useast1, 'inf2.xlarge');
    expect(inf2.requirements.labels()).toMatchObject({
      'karpenter.k8s.aws/instance-accelerator-name': 'inferentia2',
      'karpenter.k8s.aws/instance-accelerator-manufacturer': 'aws',
      'karpenter.k8s.aws/instance-accelerator-count': '1',
    });
    expect(inf2.capacity['aws.amazon.com/neuron']).toBe(1);
    expect(inf2.capacity['aws.amazon.com/neuroncore']).toBe(2);
  });
});

describe('NodePool requirements against the catalog', () => {
  it('selects c, m and r types newer than generation 5', () => {
    const names = matching(useast1, [
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
    ]);
    expect(names).toContain('m6i.large');
    expect(names).toContain('c7g.xlarge');
    expect(names).toContain('r8g.2xlarge');
    expect(names).not.toContain('m5.large');
    expect(names).not.toContain('t3.large');
    expect(names).not.toContain('g5.xlarge');
    const records = new Map(shippedAwsCatalog().instanceTypes.map((r) => [r.name, r]));
    for (const name of names) {
      const r = records.get(name)!;
      expect(['c', 'm', 'r']).toContain(r.category);
      expect(r.generation).toBeGreaterThan(5);
    }
    const expected = useast1.filter((t) => {
      const r = records.get(t.name)!;
      return ['c', 'm', 'r'].includes(r.category) && r.generation > 5;
    });
    expect(names).toHaveLength(expected.length);
  });

  it('answers numeric, architecture and exclusion requirements', () => {
    const names = matching(useast1, [
      { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['3'] },
      { key: 'karpenter.k8s.aws/instance-family', operator: 'NotIn', values: ['a1'] },
      { key: 'karpenter.k8s.aws/instance-capability-flex', operator: 'In', values: ['false'] },
    ]);
    expect(names).toContain('m7g.large');
    expect(names).toContain('t4g.micro');
    expect(names).not.toContain('a1.large');
    expect(names).not.toContain('m7g.xlarge');
    expect(names).not.toContain('m5.large');
  });

  it('lets a pod require a GPU count only on GPU types', () => {
    const names = matching(useast1, [
      { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Gt', values: ['0'] },
    ]);
    expect(names).toContain('p4d.24xlarge');
    expect(names).not.toContain('m5.large');
  });

  it('keeps the documented default NodePool to on-demand amd64 Linux c/m/r above generation 2', () => {
    const names = matching(useast1, defaultAwsNodePool().spec.template.spec.requirements);
    expect(names).toContain('m5.large');
    expect(names).toContain('c7i.xlarge');
    expect(names).not.toContain('m6g.large');
    expect(names).not.toContain('t3.medium');
    expect(names).not.toContain('c1.medium');
  });
});

describe('offerings and prices', () => {
  it('offers on-demand at the region price and spot at 0.7 × on-demand in each offered zone', () => {
    const m5 = find(useast1, 'm5.large');
    expect(m5.offerings).toHaveLength(10);
    for (const o of m5.offerings) {
      expect(o.available).toBe(true);
      expect(o.price).toBeCloseTo(o.capacityType === 'spot' ? 0.096 * 0.7 : 0.096, 12);
    }
  });

  it('uses the us-east-1 prices in regions without a price table', () => {
    const usWest2 = getAwsInstanceTypes({ region: 'us-west-2' });
    const m5 = find(usWest2, 'm5.large');
    expect(m5.offerings.map((o) => o.zone)).toContain('us-west-2d');
    expect(m5.offerings.find((o) => o.capacityType === 'on-demand')!.price).toBe(0.096);
    expect(m5.requirements.labels()['topology.kubernetes.io/region']).toBe('us-west-2');
  });

  it('makes offerings of types without a price unavailable', () => {
    const prices = shippedAwsCatalog().pricing['us-east-1']!.prices;
    let unpriced = 0;
    for (const region of ['us-east-1', 'us-east-2', 'us-west-2']) {
      for (const t of getAwsInstanceTypes({ region })) {
        if (prices[t.name] !== undefined) continue;
        unpriced++;
        expect(
          t.offerings.every((o) => !o.available),
          t.name,
        ).toBe(true);
      }
    }
    expect(unpriced).toBeGreaterThan(0);
  });

  it('offers only on-demand for types that do not support spot', () => {
    const odOnly = shippedAwsCatalog().instanceTypes.find(
      (r) => !r.capacityTypes.includes('spot') && useast1.some((t) => t.name === r.name),
    )!;
    const t = find(useast1, odOnly.name);
    expect(new Set(t.offerings.map((o) => o.capacityType))).toEqual(new Set(['on-demand']));
  });

  it('limits zones to the NodeClass subnets', () => {
    const types = getAwsInstanceTypes({
      region: 'us-east-1',
      nodeClass: nodeClass({}, ['us-east-1b', 'us-east-1e']),
    });
    const m5 = find(types, 'm5.large');
    expect(new Set(m5.offerings.map((o) => o.zone))).toEqual(new Set(['us-east-1b']));
    expect(m5.requirements.get('topology.kubernetes.io/zone').valuesList()).toEqual(['us-east-1b']);
  });

  it('reports listed unavailable offerings as unavailable', () => {
    const types = getAwsInstanceTypes({
      region: 'us-east-1',
      options: {
        unavailableOfferings: [
          { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' },
        ],
      },
    });
    const off = find(types, 'm5.large').offerings.filter((o) => !o.available);
    expect(off.map((o) => `${o.capacityType}/${o.zone}`)).toEqual(['spot/us-east-1a']);
  });

  it('marks a1 unavailable with AL2023 but not with AL2', () => {
    expect(find(useast1, 'a1.large').offerings.every((o) => !o.available)).toBe(true);
    const al2 = getAwsInstanceTypes({
      region: 'us-east-1',
      nodeClass: nodeClass({ amiSelectorTerms: [{ alias: 'al2@latest' }] }),
    });
    expect(find(al2, 'a1.large').offerings.some((o) => o.available)).toBe(true);
  });

  it('explains a region without recorded offerings', () => {
    expect(() => getAwsInstanceTypes({ region: 'eu-west-9' })).toThrow(
      /no recorded EC2 zone offerings for region eu-west-9; recorded regions: us-east-1, us-east-2, us-west-2/,
    );
  });
});

describe('EC2NodeClass knobs that change capacity and overhead', () => {
  const m5Under = (spec: Partial<EC2NodeClassSpec>, options = {}) =>
    find(
      getAwsInstanceTypes({ region: 'us-east-1', nodeClass: nodeClass(spec), options }),
      'm5.large',
    );

  it('uses kubelet.maxPods for pods but keeps ENI-limited kube-reserved memory on AL2023', () => {
    const m5 = m5Under({ kubelet: { maxPods: 110 } });
    expect(m5.capacity.pods).toBe(110);
    expect(m5.overhead.kubeReserved.memory).toBe((11 * 29 + 255) * MiB);
  });

  it('caps pods at podsPerCore × vCPUs except on Bottlerocket', () => {
    expect(m5Under({ kubelet: { podsPerCore: 4 } }).capacity.pods).toBe(8);
    const br = m5Under({
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      kubelet: { podsPerCore: 4 },
    });
    expect(br.capacity.pods).toBe(29);
  });

  it('derives Bottlerocket kube-reserved memory from the effective max pods', () => {
    const br = m5Under({
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      kubelet: { maxPods: 50 },
    });
    expect(br.overhead.kubeReserved.memory).toBe((11 * 50 + 255) * MiB);
  });

  it('replaces kube-reserved entries key by key and adds system-reserved', () => {
    const m5 = m5Under({
      kubelet: { kubeReserved: { cpu: '500m' }, systemReserved: { cpu: '100m', memory: '200Mi' } },
    });
    expect(m5.overhead.kubeReserved).toEqual({
      cpu: 500,
      memory: 574 * MiB,
      'ephemeral-storage': GiB,
    });
    expect(m5.overhead.systemReserved).toEqual({ cpu: 100, memory: 200 * MiB });
    expect(m5.allocatable().cpu).toBe(2000 - 500 - 100);
  });

  it('applies evictionHard quantities and percentages (100% disables the signal)', () => {
    const m5 = m5Under({
      kubelet: { evictionHard: { 'memory.available': '5%', 'nodefs.available': '100%' } },
    });
    const memoryCapacity = (8192 - 615) * MiB;
    expect(m5.overhead.evictionThreshold).toEqual({
      memory: Math.ceil((memoryCapacity / 100) * 5),
      'ephemeral-storage': 0,
    });
    expect(
      m5Under({ kubelet: { evictionHard: { 'memory.available': '1Gi' } } }).overhead
        .evictionThreshold.memory,
    ).toBe(GiB);
  });

  it('sizes ephemeral storage from the root volume mapping', () => {
    const m5 = m5Under({
      blockDeviceMappings: [
        { deviceName: '/dev/xvdb', ebs: { volumeSize: '500Gi' } },
        { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '100Gi' } },
      ],
    });
    expect(m5.capacity['ephemeral-storage']).toBe(100 * GiB);
    expect(m5.allocatable()['ephemeral-storage']).toBe(100 * GiB - GiB - 10 * GiB);
  });

  it('uses the family ephemeral device when no mapping is the root volume', () => {
    expect(
      m5Under({ blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '80Gi' } }] })
        .capacity['ephemeral-storage'],
    ).toBe(80 * GiB);
    const br = m5Under({
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      blockDeviceMappings: [
        { deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi' } },
        { deviceName: '/dev/xvdb', ebs: { volumeSize: '60Gi' } },
      ],
    });
    expect(br.capacity['ephemeral-storage']).toBe(60 * GiB);
  });

  it('uses the NVMe instance store with instanceStorePolicy RAID0', () => {
    const types = getAwsInstanceTypes({
      region: 'us-east-1',
      nodeClass: nodeClass({ instanceStorePolicy: 'RAID0' }),
    });
    expect(find(types, 'c6id.xlarge').capacity['ephemeral-storage']).toBe(237 * 1e9);
    expect(find(types, 'm5.large').capacity['ephemeral-storage']).toBe(20 * GiB);
  });

  it('models Windows nodes: 110 pods, windows labels, private IPv4 resource, no arm64', () => {
    const win = getAwsInstanceTypes({
      region: 'us-east-1',
      nodeClass: nodeClass({ amiSelectorTerms: [{ alias: 'windows2022@latest' }] }),
    });
    const m5 = find(win, 'm5.large');
    expect(m5.capacity.pods).toBe(110);
    expect(m5.overhead.kubeReserved.memory).toBe((11 * 110 + 255) * MiB);
    expect(m5.capacity['vpc.amazonaws.com/PrivateIPv4Address']).toBe(9);
    expect(m5.capacity['ephemeral-storage']).toBe(50 * GiB);
    expect(m5.requirements.labels()).toMatchObject({
      'kubernetes.io/os': 'windows',
      'node.kubernetes.io/windows-build': '10.0.20348',
    });
    expect(find(win, 'm7g.large').offerings.every((o) => !o.available)).toBe(true);
  });

  it('honours reservedENIs, efa-only interfaces and the VM memory overhead flag', () => {
    expect(m5Under({}, { reservedENIs: 1 }).capacity.pods).toBe(2 * 9 + 2);
    const p4d = find(
      getAwsInstanceTypes({
        region: 'us-east-1',
        nodeClass: nodeClass({
          networkInterfaces: [
            { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' },
            { networkCardIndex: 0, deviceIndex: 1, interfaceType: 'efa-only' },
            { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa-only' },
          ],
        }),
      }),
      'p4d.24xlarge',
    );
    expect(p4d.capacity.pods).toBe(14 * 49 + 2);
    expect(p4d.capacity['vpc.amazonaws.com/efa']).toBe(2);
    expect(m5Under({}, { vmMemoryOverheadPercent: 0 }).capacity.memory).toBe(8192 * MiB);
  });
});
