/**
 * Upstream documents that the API server accepts (issue 15, Validation): validate accepts them
 * too, and simulate, explain and compare read them as the API server stores them.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
`;

/** Optional fields written with no value, as Helm renders an empty value. */
const emptyValues = [
  `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: empty-values
  labels:
spec:
  weight:
  limits:
  disruption:
    consolidateAfter: 1m
  template:
    metadata:
      labels:
      annotations:
    spec:
      taints:
      startupTaints:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
`,
  `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: empty-values}
spec:
  requirements:
    - {key: kubernetes.io/arch, operator: In, values: [amd64]}
  price:
  capacity:
  weight:
`,
  `apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: default}
spec:
  tags:
  kubelet:
`,
  `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  tags:
  kubelet:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`,
];

describe('empty optional fields (issue 15, Validation 1)', () => {
  it('validate accepts limits:, weight:, taints:, labels:, tags:, price:, capacity: with no value', async () => {
    const file = await writeManifests(...emptyValues);
    const { code, stdout } = await cli('validate', file);
    expect(stdout).toContain('✓ 4 objects valid');
    expect(code).toBe(0);
  });

  it.each(['azure', 'aws', 'sim'])(
    'simulate --cloud %s reads them as absent (no limits, weight 0, no taints)',
    async (cloud) => {
      const file = await writeManifests(...emptyValues, deployment);
      const { code, stdout, stderr } = await cli('simulate', file, '--cloud', cloud);
      expect(stderr).not.toContain('internal error');
      expect(code).toBe(0);
      expect(stdout).toContain('2 of 2 pods scheduled');
    },
  );

  it('explain and compare read them as absent', async () => {
    const file = await writeManifests(...emptyValues, deployment);
    const explained = await cli('explain', file, '--pod', 'web');
    expect(explained.stderr).not.toContain('internal error');
    expect(explained.code).toBe(0);
    expect(explained.stdout).toContain('NodePool "empty-values"');
    const compared = await cli('compare', file);
    expect(compared.stderr).not.toContain('internal error');
    expect(compared.code).toBe(0);
  });
});

describe('status in a created document (issue 15, Validation 5)', () => {
  it('is ignored, as the API server drops it on create: a kubectl get -o yaml copy validates', async () => {
    const file = await writeManifests(
      `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata:
    name: default
    uid: 2b8cf9c4-8a66-4b4e-9f2e-6c7b0c1b2d3e
    resourceVersion: "12345"
    generation: 1
    creationTimestamp: "2024-08-21T10:00:00Z"
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
        requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  status:
    nodes: three
    conditions: [{type: Ready, status: "True"}]
- apiVersion: karpenter.sh/v1
  kind: NodeClaim
  metadata: {name: default-abcde}
  spec:
    nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
    requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  status: {providerID: 5, conditions: [{type: Launched}]}
- apiVersion: karpenter.azure.com/v1beta1
  kind: AKSNodeClass
  metadata: {name: default}
  status: {localDNSState: Maybe, images: [{id: x}]}
`,
    );
    const { code, stdout } = await cli('validate', file);
    expect(stdout).toContain('✓ 3 objects valid');
    expect(code).toBe(0);
  });
});

describe('checks the API server makes (issue 15, Validation 8)', () => {
  it('metadata label keys, an empty ownerReferences uid, a set listing a value twice, an overlay key too long', async () => {
    const file = await writeManifests(
      `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: p
  labels: {team name: a}
  ownerReferences: [{apiVersion: v1, kind: X, name: n, uid: ""}]
spec:
  disruption: {budgets: [{nodes: "1", reasons: [Empty, Empty]}]}
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
`,
      `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: o}
spec:
  requirements: [{key: example.com/${'k'.repeat(64)}, operator: Exists}]
  price: "1"
`,
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    const fields = stdout
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => l.split(' ')[1]);
    expect(fields).toEqual([
      'metadata.labels[team',
      'metadata.ownerReferences[0].uid:',
      'spec.disruption.budgets[0].reasons[1]:',
      'spec.requirements[0].key:',
    ]);
  });
});

describe('NodePools for another NodeClass kind (issue 15, Validation 4)', () => {
  const pool = (name: string, group: string, kind: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: ${name}}
spec:
  template:
    spec:
      nodeClassRef: {group: ${group}, kind: ${kind}, name: default}
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
`;

  it('KWOKNodeClass (upstream test NodePools) is validated, warned about, and exits 0', async () => {
    const file = await writeManifests(pool('kwok', 'karpenter.kwok.sh', 'KWOKNodeClass'));
    const { code, stdout } = await cli('validate', file);
    expect(stdout).toBe(
      `${file}:1 spec.template.spec.nodeClassRef: warning: no provider here serves KWOKNodeClass (group karpenter.kwok.sh): the NodePool is valid, but simulate, explain and compare leave it out\n` +
        '✓ 1 object valid (1 NodePool) in 1 file; 1 warning\n',
    );
    expect(code).toBe(0);
    const json = JSON.parse((await cli('validate', file, '-o', 'json')).stdout) as {
      problems: unknown[];
      warnings: { field: string; object: string }[];
    };
    expect(json.problems).toEqual([]);
    expect(json.warnings).toEqual([
      expect.objectContaining({
        field: 'spec.template.spec.nodeClassRef',
        object: 'NodePool/kwok',
      }),
    ]);
  });

  it('its NodePool is still validated: a schema problem is a problem', async () => {
    const file = await writeManifests(
      pool('kwok', 'karpenter.kwok.sh', 'KWOKNodeClass').replace('In, values', 'Equals, values'),
    );
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(stdout).toContain('spec.template.spec.requirements[0].operator: must be one of');
  });

  it('a wrong kind in a group served here stays a problem (a typo)', async () => {
    const file = await writeManifests(pool('typo', 'karpenter.azure.com', 'AKSNodeClas'));
    const { code } = await cli('validate', file);
    expect(code).toBe(1);
  });
});

describe("validate --cloud: the provider's CRDs and NodePool checks (issue 15, Validation 3)", () => {
  const azurePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: azure}
spec:
  template:
    metadata:
      labels: {kubernetes.azure.com/role: agent}
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
        - {key: karpenter.azure.com/sku-hyperv-generation, operator: In, values: ["2"]}
        - {key: kubernetes.azure.com/mode, operator: In, values: [System]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [reserved]}
`;
  const awsClaim = `apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: claim}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: [{key: karpenter.k8s.aws/instance-colour, operator: In, values: [red]}]
`;
  const fields = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => l.split(' ')[1]);

  it('without --cloud: our CRDs, and the runtime known values of the NodePool provider', async () => {
    const file = await writeManifests(azurePool, awsClaim);
    const { code, stdout } = await cli('validate', file);
    expect(code).toBe(1);
    expect(fields(stdout)).toEqual([
      'spec.template.spec.requirements[1].values:',
      'spec.template.spec.requirements[2].values:',
    ]);
    expect(stdout).toContain('kubernetes.azure.com/mode In needs at least one of system, user');
    expect(stdout).toContain('karpenter.sh/capacity-type In needs at least one of on-demand, spot');
  });

  it('--cloud azure: as the Azure-installed CRDs refuse kubernetes.azure.com labels and internal keys', async () => {
    const file = await writeManifests(azurePool, awsClaim);
    const { code, stdout } = await cli('validate', '--cloud', 'azure', file);
    expect(code).toBe(1);
    expect(fields(stdout)).toEqual([
      'spec.template.metadata.labels[kubernetes.azure.com/role]:',
      'spec.template.spec.requirements[0].key:',
      'spec.template.spec.requirements[1].values:',
      'spec.template.spec.requirements[2].values:',
    ]);
  });

  it('--cloud aws: NodeClaim requirement keys in karpenter.k8s.aws are limited to its labels', async () => {
    const file = await writeManifests(awsClaim);
    expect((await cli('validate', file)).code).toBe(0);
    const { code, stdout } = await cli('validate', '--cloud', 'aws', file);
    expect(code).toBe(1);
    expect(fields(stdout)).toEqual(['spec.requirements[0].key:']);
  });
});
