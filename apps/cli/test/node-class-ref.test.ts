import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const TYPO_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: typo }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClas, name: default }
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
const AWS_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: general }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
      requirements:
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
const WEB = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 2
  template:
    spec:
      containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m } } }]
`;
const SERVED = 'AKSNodeClass in karpenter.azure.com, EC2NodeClass in karpenter.k8s.aws';

describe('a NodePool whose nodeClassRef names a kind no cloud serves', () => {
  it('is a validate problem naming spec.template.spec.nodeClassRef.kind and the served kinds (exit 1)', async () => {
    const file = await writeManifests(TYPO_POOL);
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `${file}:1 spec.template.spec.nodeClassRef.kind: "AKSNodeClas" (group karpenter.azure.com) is not a NodeClass kind any cloud serves (${SERVED}): no cloud launches from this NodePool (Karpenter ignores it)`,
    );
  });

  it('hints the well-known label a misspelt restricted requirement key was meant to be', async () => {
    const file = await writeManifests(
      TYPO_POOL.replace('AKSNodeClas,', 'AKSNodeClass,').replace(
        'karpenter.sh/capacity-type, operator: In, values: [on-demand]',
        'karpenter.azure.com/sku-familly, operator: In, values: [D]',
      ),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toBe(
      `${file}:1 spec.template.spec.requirements[0].key: requirement key karpenter.azure.com/sku-familly is restricted (its domain is reserved); did you mean karpenter.azure.com/sku-family?`,
    );
  });

  it('names nodeClassRef.group when a served kind is in the wrong group', async () => {
    const file = await writeManifests(
      TYPO_POOL.replace('AKSNodeClas,', 'AKSNodeClass,').replace(
        'karpenter.azure.com',
        'karpenter.k8s.aws',
      ),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `${file}:1 spec.template.spec.nodeClassRef.group: "karpenter.k8s.aws" does not serve kind AKSNodeClass`,
    );
  });

  it('is not replaced by the default NodePool in simulate: every pod stays pending with the reason', async () => {
    const file = await writeManifests(TYPO_POOL, WEB);
    const { code, stdout } = await cli('simulate', file, '--cloud', 'azure', '-o', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      nodeClaims: unknown[];
      podErrors: { reason: string }[];
    };
    expect(report.nodeClaims).toEqual([]);
    expect([...new Set(report.podErrors.map((p) => p.reason))]).toEqual([
      `no usable NodePool: NodePool "typo" is not usable: spec.template.spec.nodeClassRef.kind: "AKSNodeClas" (group karpenter.azure.com) is not a NodeClass kind any cloud serves (${SERVED}): no cloud launches from this NodePool (Karpenter ignores it)`,
    ]);
  });

  it('leaves the simulate header with no usable NodePool instead of an empty list', async () => {
    const file = await writeManifests(TYPO_POOL, WEB);
    const { code, stdout } = await cli('simulate', file, '--cloud', 'azure');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('Simulation on azure eastus with no usable NodePool');
  });

  it('is left out of compare on every cloud while a pool of a served kind is still retargeted', async () => {
    const file = await writeManifests(TYPO_POOL, AWS_POOL, WEB);
    const { code, stdout } = await cli('compare', file, '-o', 'json');
    expect(code).toBe(0);
    expect(stdout).toContain('NodePool \\"typo\\" is not usable');
    expect(stdout).toContain('NodePool \\"general\\" references EC2NodeClass: simulated on azure');
  });
});

describe('a NodePool whose NodeClass is not in the input', () => {
  const missing = (cloud: 'azure' | 'aws') =>
    cloud === 'azure'
      ? AWS_POOL.replace('name: general', 'name: np')
          .replace(
            'karpenter.k8s.aws, kind: EC2NodeClass',
            'karpenter.azure.com, kind: AKSNodeClass',
          )
          .replace('name: default }', 'name: does-not-exist }')
      : AWS_POOL.replace('name: general', 'name: np').replace(
          'name: default }',
          'name: does-not-exist }',
        );

  for (const cloud of ['azure', 'aws'] as const) {
    it(`launches from it with the default NodeClass settings, as the note says (${cloud})`, async () => {
      const file = await writeManifests(missing(cloud), WEB);
      const { code, stdout } = await cli('simulate', file, '--cloud', cloud, '-o', 'json');
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as {
        nodeClaims: { nodePool: string }[];
        podErrors: unknown[];
        notes: string[];
      };
      expect(report.podErrors).toEqual([]);
      expect(report.nodeClaims.map((c) => c.nodePool)).toContain('np');
      expect(report.notes.join('\n')).toContain(
        `NodePool "np" references ${cloud === 'azure' ? 'AKSNodeClass' : 'EC2NodeClass'} "does-not-exist", which is not in the input: using the default`,
      );
    });
  }
});
