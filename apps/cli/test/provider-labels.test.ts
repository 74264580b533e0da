/**
 * A pod may select a cloud provider's own instance-type label (Azure `karpenter.azure.com/sku-*`,
 * AWS `karpenter.k8s.aws/instance-*`, sim `karpenter.kwok.sh/instance-*`) that its NodePool does
 * not mention, as upstream providers add their labels to the well-known set: the simulation
 * launches an instance type with that value.
 */
import { describe, expect, it } from 'vitest';
import { createCloud } from '../src/clouds/select.js';
import type { CloudName } from '../src/commands/options.js';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const NODE_CLASS: Record<CloudName, string> = {
  azure: '{group: karpenter.azure.com, kind: AKSNodeClass, name: default}',
  aws: '{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}',
  sim: '{group: karpenter.sim, kind: SimNodeClass, name: default}',
};

/** A NodePool that asks only for linux nodes, so every provider label is left open. */
function openPool(cloud: CloudName): string {
  return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: open}
spec:
  template:
    spec:
      nodeClassRef: ${NODE_CLASS[cloud]}
      requirements: [{key: kubernetes.io/os, operator: In, values: [linux]}]
`;
}

function selectingPod(key: string, value: string): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: picky}
spec:
  nodeSelector: {${key}: "${value}"}
  containers: [{name: c, image: x}]
`;
}

interface SimulationJson {
  nodeClaims: { instanceType: string }[];
  podErrors: { pod: string; reason: string }[];
}

async function simulateJson(cloud: CloudName, ...docs: string[]): Promise<SimulationJson> {
  const file = await writeManifests(...docs);
  const { code, stdout, stderr } = await cli('simulate', file, '--cloud', cloud, '-o', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as SimulationJson;
}

/** The values of `key` on the named instance type of the cloud's default catalog. */
function labelOf(cloud: CloudName, instanceType: string, key: string): readonly string[] {
  const it = createCloud(cloud, undefined)
    .instanceTypes(undefined)
    .find((t) => t.name === instanceType);
  return it?.requirements.get(key).valuesList() ?? [];
}

const cases: [CloudName, string, string][] = [
  ['azure', 'karpenter.azure.com/sku-cpu', '8'],
  ['azure', 'karpenter.azure.com/sku-family', 'E'],
  ['azure', 'karpenter.azure.com/sku-name', 'Standard_D4s_v5'],
  ['azure', 'karpenter.azure.com/sku-version', '5'],
  ['aws', 'karpenter.k8s.aws/instance-cpu', '8'],
  ['aws', 'karpenter.k8s.aws/instance-memory', '16384'],
  ['aws', 'karpenter.k8s.aws/instance-size', 'xlarge'],
  ['aws', 'karpenter.k8s.aws/instance-hypervisor', 'nitro'],
  ['sim', 'karpenter.kwok.sh/instance-cpu', '8'],
];

describe('simulate with a pod selecting a provider label the NodePool leaves open', () => {
  it.each(cases)(
    '%s: schedules %s=%s onto an instance type with that value',
    async (cloud, key, value) => {
      const report = await simulateJson(cloud, openPool(cloud), selectingPod(key, value));
      expect(report.podErrors).toEqual([]);
      expect(report.nodeClaims).toHaveLength(1);
      expect(labelOf(cloud, report.nodeClaims[0]!.instanceType, key)).toEqual([value]);
    },
  );

  it('keeps the pod pending, naming the requirement, when no instance type has the value', async () => {
    const report = await simulateJson(
      'azure',
      openPool('azure'),
      selectingPod('karpenter.azure.com/sku-cpu', '3'),
    );
    expect(report.nodeClaims).toEqual([]);
    expect(report.podErrors).toHaveLength(1);
    expect(report.podErrors[0]!.reason).toContain('no instance type met the requirements');
    expect(report.podErrors[0]!.reason).toContain('karpenter.azure.com/sku-cpu In [3]');
  });

  it('gives no "typo of" hint for a valid AWS label with the default NodePool', async () => {
    const file = await writeManifests(
      selectingPod('karpenter.k8s.aws/instance-hypervisor', 'nitro'),
    );
    const { code, stdout } = await cli('simulate', file, '--cloud', 'aws');
    expect(code).toBe(0);
    expect(stdout).not.toContain('typo of');
    expect(stdout).toMatch(/1 of 1 pods scheduled/);
  });

  it('explain says the NodePool can host the pod', async () => {
    const file = await writeManifests(
      openPool('azure'),
      selectingPod('karpenter.azure.com/sku-cpu', '8'),
    );
    const { code, stdout, stderr } = await cli('explain', file, '--pod', 'picky', '-o', 'json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      nodePools: { name: string; canHost: boolean; launch?: { instanceType: string } }[];
    };
    expect(report.nodePools[0]).toMatchObject({ name: 'open', canHost: true });
    const launched = report.nodePools[0]!.launch!.instanceType;
    expect(labelOf('azure', launched, 'karpenter.azure.com/sku-cpu')).toEqual(['8']);
  });
});
