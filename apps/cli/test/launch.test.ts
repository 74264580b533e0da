import { describe, expect, it } from 'vitest';
import { createInstanceType, createOffering, type Offering } from '@karpenter-ts/cloudprovider';
import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from '@karpenter-ts/scheduling';
import { chooseAwsLaunch } from '../src/clouds/aws-launch.js';
import { cli } from './support/cli.js';

const spotAndOnDemand = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: mixed }
spec:
  template:
    spec:
      nodeClassRef: { group: GROUP, kind: KIND, name: default }
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand] }
        - EXTRA
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 3
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m, memory: 512Mi } } }]
`;

async function simulateJson(cloud: 'azure' | 'aws', group: string, kind: string, extra: string) {
  const { writeFile, mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(`${tmpdir()}/karpenter-ts-launch-`);
  const file = `${dir}/mixed.yaml`;
  await writeFile(
    file,
    spotAndOnDemand.replace('GROUP', group).replace('KIND', kind).replace('EXTRA', extra),
  );
  const { code, stdout, stderr } = await cli('simulate', file, '--cloud', cloud, '-o', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as {
    notes: string[];
    nodeClaims: { capacityType: string; pricePerHour: number }[];
  };
}

describe('what the cloud launches for a spot + on-demand NodePool', () => {
  it('Azure launches spot (upstream picks spot whenever the node claim allows it) and says spot is priced as on-demand', async () => {
    // D-series sizes all support spot (B-series, cheaper, do not: a B size launches on-demand).
    const report = await simulateJson(
      'azure',
      'karpenter.azure.com',
      'AKSNodeClass',
      '{ key: karpenter.azure.com/sku-family, operator: In, values: [D] }',
    );
    expect(report.nodeClaims.length).toBeGreaterThan(0);
    for (const claim of report.nodeClaims) expect(claim.capacityType).toBe('spot');
    expect(report.notes.join('\n')).toMatch(
      /Azure spot prices equal on-demand prices in the shipped data/,
    );
  });

  it('AWS launches spot, the capacity type Create prefers after reserved', async () => {
    const report = await simulateJson(
      'aws',
      'karpenter.k8s.aws',
      'EC2NodeClass',
      '{ key: kubernetes.io/arch, operator: In, values: [amd64] }',
    );
    for (const claim of report.nodeClaims) expect(claim.capacityType).toBe('spot');
    expect(report.notes.join('\n')).not.toMatch(/Azure spot/);
  });
});

describe('chooseAwsLaunch', () => {
  const both = Requirements.fromNodeSelectorRequirements([
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
  ]);
  const type = (name: string, offerings: Offering[]) =>
    createInstanceType({
      name,
      requirements: Requirements.fromLabels({ 'node.kubernetes.io/instance-type': name }),
      offerings,
      capacity: { cpu: 2000, memory: 4 * 2 ** 30, pods: 20 },
    });
  const offer = (zone: string, capacityType: 'spot' | 'on-demand' | 'reserved', price: number) =>
    createOffering({ zone, capacityType, price });
  const choose = (types: ReturnType<typeof type>[], requirements = both) =>
    chooseAwsLaunch(types, requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED);

  it('prefers reserved, then spot, then on-demand, whatever the prices', () => {
    const a = type('a', [offer('z1', 'on-demand', 0.01), offer('z1', 'spot', 0.05)]);
    expect(choose([a])?.offering.capacityType).toBe('spot');
    const b = type('b', [offer('z1', 'reserved', 0.2)]);
    const reservedAllowed = Requirements.fromNodeSelectorRequirements([
      {
        key: 'karpenter.sh/capacity-type',
        operator: 'In',
        values: ['reserved', 'spot', 'on-demand'],
      },
    ]);
    expect(choose([a, b], reservedAllowed)?.offering.capacityType).toBe('reserved');
  });

  it('drops spot offerings priced above the cheapest on-demand offering', () => {
    const cheapOnDemand = type('small', [offer('z1', 'on-demand', 0.04)]);
    const pricySpot = type('big', [offer('z1', 'spot', 0.08), offer('z2', 'spot', 0.03)]);
    expect(choose([cheapOnDemand, pricySpot])?.offering).toMatchObject({ zone: 'z2', price: 0.03 });
  });

  it('takes the cheapest offering of the chosen capacity type across all options', () => {
    const a = type('a', [offer('z1', 'spot', 0.05)]);
    const b = type('b', [offer('z2', 'spot', 0.02), offer('z3', 'spot', 0.02)]);
    const chosen = choose([a, b]);
    expect(chosen?.instanceType.name).toBe('b');
    expect(chosen?.offering.zone).toBe('z2');
  });
});
