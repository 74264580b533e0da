/**
 * Issue 15 (Validation 1-8): for each upstream document whose verdict offline differed from the
 * API server's, a real kube-apiserver with our CRDs (and, for the provider rules, the karpenter.sh
 * CRDs as the Azure and AWS providers install them) must reach the verdict `validate` reaches:
 * accepted by both, or rejected by both on the same fields.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyDefaults,
  crdValidator,
  validate,
  type CrdValidator,
  type KarpenterKind,
  type Violation,
} from '@karpenter-ts/api';
import { awsKarpenterCrd, defaultEC2NodeClass } from '@karpenter-ts/provider-aws';
import { azureKarpenterCrd } from '@karpenter-ts/provider-azure';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiStatusOf, installCrds, type ApiStatus } from '../../src/index.js';
import { clusterConnection, installAllCrds, providerCrdFiles } from './cluster.js';

const connection = clusterConnection();

/** The server's answer to creating `object` at `path` (dry run, strict fields): its Status when rejected. */
async function create(
  path: string,
  object: unknown,
): Promise<{ status?: ApiStatus; stored?: Record<string, unknown> }> {
  try {
    const stored = await connection.request<Record<string, unknown>>('POST', path, {
      body: object,
      query: { fieldValidation: 'Strict', dryRun: 'All' },
    });
    return { stored };
  } catch (err) {
    const status = apiStatusOf(err);
    if (status === undefined) throw err;
    return { status };
  }
}

/** A field path without list indexes and map keys in brackets, to compare server and offline paths. */
function normalized(path: string): string {
  return path.replace(/\[[^\]]*\]/g, '');
}

function sameField(serverField: string, offlinePath: string): boolean {
  const a = normalized(serverField);
  const b = normalized(offlinePath);
  return b === a || b.startsWith(`${a}.`) || a.startsWith(`${b}.`);
}

/**
 * Asserts the server's verdict equals the offline one: both accept (offline problems, if any,
 * are runtime ones the apiserver stores), or both reject on the same fields.
 */
async function expectSameVerdict(path: string, object: unknown, offline: Violation[]) {
  const { status, stored } = await create(path, object);
  const rejected = offline.filter((v) => v.apiServer === 'reject' || v.apiServer === 'prune');
  if (rejected.length === 0) {
    expect(
      status,
      `server refused what validate accepts: ${JSON.stringify(status)}`,
    ).toBeUndefined();
    return stored;
  }
  expect(status?.code, `server accepted what validate refuses: ${JSON.stringify(rejected)}`).toBe(
    422,
  );
  const causes = (status?.details?.causes ?? [])
    .map((c) => c.field ?? '')
    .filter((f) => f !== '' && f !== '<nil>');
  for (const field of causes)
    expect(
      rejected.some((v) => sameField(field, v.path)),
      `server field ${field} has no offline counterpart in ${JSON.stringify(rejected.map((v) => v.path))}`,
    ).toBe(true);
  for (const v of rejected)
    expect(
      causes.some((field) => sameField(field, v.path)),
      `offline ${v.path} (${v.rule}) not reported by the server: ${JSON.stringify(causes)}`,
    ).toBe(true);
  return undefined;
}

const nodeClassRef = { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' };
const requirements = [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }];
const nodePools = '/apis/karpenter.sh/v1/nodepools';
let counter = 0;
const name = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${counter++}`;

function nodePool(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: name('parity'), ...metadata },
    spec: { template: { spec: { nodeClassRef, requirements } }, ...spec },
  };
}

describe('issue 15 examples: the API server with our CRDs and validate agree', () => {
  let ec2: CrdValidator;
  let aks: CrdValidator;

  beforeAll(async () => {
    await installAllCrds(connection);
    const [aksFile, ec2File] = providerCrdFiles;
    aks = crdValidator(readFileSync(aksFile!, 'utf8'));
    ec2 = crdValidator(readFileSync(ec2File!, 'utf8'));
  });

  it('1: optional fields written empty (null) are accepted', async () => {
    const pool = nodePool({
      weight: null,
      limits: null,
      template: { metadata: { labels: null }, spec: { taints: null, nodeClassRef, requirements } },
    });
    expect(validate(pool)).toEqual([]);
    await expectSameVerdict(nodePools, pool, validate(pool));
  });

  it('2: consolidateAfter may be left out and defaults to 0s', async () => {
    const pool = nodePool({ disruption: { consolidationPolicy: 'WhenEmpty' } });
    const stored = await expectSameVerdict(nodePools, pool, validate(pool));
    const spec = (stored as { spec: { disruption: unknown } }).spec;
    const defaulted = applyDefaults(pool) as unknown as { spec: { disruption: unknown } };
    expect(spec.disruption).toEqual(defaulted.spec.disruption);
    expect(spec.disruption).toMatchObject({ consolidateAfter: '0s' });
  });

  it('4: a NodePool for another NodeClass kind (KWOKNodeClass) is accepted', async () => {
    const pool = nodePool({
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
          requirements,
        },
      },
    });
    await expectSameVerdict(nodePools, pool, validate(pool));
  });

  it('5: status in a created object is ignored', async () => {
    const pool = {
      ...nodePool({}),
      status: { nodes: 'three', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    await expectSameVerdict(nodePools, pool, validate(pool));
    const claim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: name('parity') },
      spec: { nodeClassRef, requirements },
      status: { providerID: 5, conditions: [{ type: 'Launched' }] },
    };
    await expectSameVerdict('/apis/karpenter.sh/v1/nodeclaims', claim, validate(claim));
    const nodeClass = {
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name: name('parity') },
      spec: {},
      status: { localDNSState: 'Maybe', images: [{ id: 'x' }] },
    };
    await expectSameVerdict(
      '/apis/karpenter.azure.com/v1beta1/aksnodeclasses',
      nodeClass,
      aks.validate(nodeClass),
    );
  });

  describe('6: EC2NodeClass rules as upstream has them', () => {
    const path = '/apis/karpenter.k8s.aws/v1/ec2nodeclasses';
    const nodeClass = (change: (spec: Record<string, unknown>) => void) => {
      const nc = structuredClone(defaultEC2NodeClass()) as unknown as {
        metadata: { name: string };
        spec: Record<string, unknown>;
      };
      nc.metadata.name = name('parity');
      change(nc.spec);
      return nc;
    };
    it.each<[string, (s: Record<string, unknown>) => void]>([
      [
        'id with tags in one subnet term, another term plain',
        (s) => {
          s.subnetSelectorTerms = [{ id: 'subnet-0abc', tags: { a: 'b' } }, { tags: { c: 'd' } }];
        },
      ],
      ['networkInterfaces: []', (s) => (s.networkInterfaces = [])],
      [
        'alias with ssmParameter',
        (s) => {
          s.amiSelectorTerms = [{ alias: 'al2023@latest', ssmParameter: '/my/ami' }];
        },
      ],
      [
        'grace periods 1.5m and 500ms',
        (s) => {
          s.kubelet = {
            evictionSoft: { 'memory.available': '5%', 'nodefs.available': '10%' },
            evictionSoftGracePeriod: { 'memory.available': '1.5m', 'nodefs.available': '500ms' },
          };
        },
      ],
      ['evictionHard: ""', (s) => (s.kubelet = { evictionHard: { 'memory.available': '' } })],
      ['sg-0123ABC', (s) => (s.securityGroupSelectorTerms = [{ id: 'sg-0123ABC' }])],
      [
        'volumeSize: 18Ti (refused)',
        (s) => {
          s.blockDeviceMappings = [{ deviceName: '/dev/xvda', ebs: { volumeSize: '18Ti' } }];
        },
      ],
      [
        "volumeInitializationRate with snapshotID: '' (refused)",
        (s) => {
          s.blockDeviceMappings = [
            { deviceName: '/dev/xvdb', ebs: { snapshotID: '', volumeInitializationRate: 200 } },
          ];
        },
      ],
    ])('%s', async (title, change) => {
      const nc = nodeClass(change);
      const offline = ec2.validate(nc);
      // The verdict upstream's CRD reaches (issue 15): refused where the title says so.
      expect(offline.some((v) => v.apiServer === 'reject')).toBe(title.endsWith('(refused)'));
      await expectSameVerdict(path, nc, offline);
    });
  });

  describe('7: AKSNodeClass rules as upstream has them', () => {
    const path = '/apis/karpenter.azure.com/v1beta1/aksnodeclasses';
    const override = (zone: string, forwardDestination: string) => ({
      zone,
      queryLogging: 'Error',
      protocol: 'PreferUDP',
      forwardDestination,
      forwardPolicy: 'Sequential',
      maxConcurrent: 1000,
      cacheDuration: '1h',
      serveStaleDuration: '1h',
      serveStale: 'Immediate',
    });
    const kube = [override('.', 'ClusterCoreDNS'), override('cluster.local', 'ClusterCoreDNS')];
    const vnet = [override('.', 'VnetDNS'), override('cluster.local', 'ClusterCoreDNS')];
    it.each<[string, Record<string, unknown>]>([
      ['localDNS with only mode (refused)', { localDNS: { mode: 'Preferred' } }],
      ['containerLogMaxSize without a unit (refused)', { kubelet: { containerLogMaxSize: '50' } }],
      [
        'swapFileSize without a unit (refused)',
        { kubelet: { failSwapOn: false }, linuxOSConfig: { swapFileSize: '1024' } },
      ],
      [
        '*.cluster.local to VnetDNS (refused)',
        {
          localDNS: {
            mode: 'Required',
            vnetDNSOverrides: vnet,
            kubeDNSOverrides: [...kube, override('svc.cluster.local', 'VnetDNS')],
          },
        },
      ],
      [
        'a zone twice (refused)',
        {
          localDNS: {
            mode: 'Required',
            vnetDNSOverrides: vnet,
            kubeDNSOverrides: [...kube, override('.', 'ClusterCoreDNS')],
          },
        },
      ],
      [
        'mycluster.local to ClusterCoreDNS',
        {
          localDNS: {
            mode: 'Required',
            vnetDNSOverrides: [...vnet, override('mycluster.local', 'ClusterCoreDNS')],
            kubeDNSOverrides: kube,
          },
        },
      ],
      ['cpuCFSQuotaPeriod: "100"', { kubelet: { cpuCFSQuotaPeriod: '100' } }],
      [
        'vnetSubnetID longer than 1,024 characters',
        {
          vnetSubnetID: `/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/${'v'.repeat(1000)}/subnets/s`,
        },
      ],
    ])('%s', async (title, spec) => {
      const nc = {
        apiVersion: 'karpenter.azure.com/v1beta1',
        kind: 'AKSNodeClass',
        metadata: { name: name('parity') },
        spec,
      };
      const offline = aks.validate(nc);
      // The verdict upstream's CRD reaches (issue 15): refused where the title says so.
      expect(offline.some((v) => v.apiServer === 'reject')).toBe(title.endsWith('(refused)'));
      // A missing required field stops the apiserver before CEL; compare the schema errors.
      const required = offline.filter((v) => v.rule === 'required');
      await expectSameVerdict(path, nc, required.length > 0 ? required : offline);
    });
  });

  describe('8: checks the apiserver makes', () => {
    it('a metadata label key that is not a qualified name (refused)', async () => {
      const pool = nodePool({}, { labels: { 'team name': 'a' } });
      await expectSameVerdict(nodePools, pool, validate(pool));
    });

    it('an owner reference with an empty uid (refused)', async () => {
      const pool = nodePool(
        {},
        { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: '' }] },
      );
      await expectSameVerdict(nodePools, pool, validate(pool));
    });

    it('a budget reason listed twice (refused)', async () => {
      const pool = nodePool({
        disruption: { budgets: [{ nodes: '1', reasons: ['Empty', 'Drifted', 'Empty'] }] },
      });
      await expectSameVerdict(nodePools, pool, validate(pool));
    });

    it('a NodeOverlay requirement key longer than a label key: stored (only runtime validation refuses it)', async () => {
      const overlay = {
        apiVersion: 'karpenter.sh/v1alpha1',
        kind: 'NodeOverlay',
        metadata: { name: name('parity') },
        spec: {
          requirements: [{ key: `example.com/${'k'.repeat(64)}`, operator: 'Exists' }],
          price: '1',
        },
      };
      expect(validate(overlay)).toEqual([]);
      await expectSameVerdict('/apis/karpenter.sh/v1alpha1/nodeoverlays', overlay, []);
    });
  });
});

/**
 * The karpenter.sh CRDs as a provider installs them, served under a test group of their own so
 * they sit beside ours on the same control plane (a CRD's rules do not depend on its group).
 */
function underTestGroup(doc: Record<string, unknown>, group: string): Record<string, unknown> {
  const copy = structuredClone(doc) as {
    metadata: { name: string };
    spec: { group: string; names: { plural: string } };
  };
  copy.spec.group = group;
  copy.metadata.name = `${copy.spec.names.plural}.${group}`;
  return copy as unknown as Record<string, unknown>;
}

describe('3: the karpenter.sh CRDs as the Azure and AWS providers install them', () => {
  const providers = {
    azure: { group: 'azure-crds.karpenter-ts.test', crd: azureKarpenterCrd },
    aws: { group: 'aws-crds.karpenter-ts.test', crd: awsKarpenterCrd },
  };
  const validators = new Map<string, CrdValidator>();

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpenter-ts-provider-crds-'));
    const files: string[] = [];
    for (const [provider, { group, crd }] of Object.entries(providers)) {
      for (const kind of ['NodePool', 'NodeClaim', 'NodeOverlay'] as KarpenterKind[]) {
        const doc = underTestGroup(crd(kind), group);
        const file = join(dir, `${provider}-${kind}.json`);
        writeFileSync(file, JSON.stringify(doc));
        files.push(file);
        validators.set(`${provider}/${kind}`, crdValidator(doc));
      }
    }
    await installCrds(connection, files);
  });

  const check = async (
    provider: 'azure' | 'aws',
    kind: KarpenterKind,
    object: Record<string, unknown>,
  ) => {
    const { group } = providers[provider];
    const version = kind === 'NodeOverlay' ? 'v1alpha1' : 'v1';
    const obj = {
      ...object,
      apiVersion: `${group}/${version}`,
      kind,
      metadata: { name: name('parity') },
    };
    const plural = `${kind.toLowerCase()}s`;
    const offline = validators.get(`${provider}/${kind}`)!.validate(obj);
    await expectSameVerdict(`/apis/${group}/${version}/${plural}`, obj, offline);
    return offline;
  };
  const poolSpec = (labels: Record<string, string>, key: string) => ({
    spec: {
      template: {
        metadata: { labels },
        spec: { nodeClassRef, requirements: [{ key, operator: 'In', values: ['x'] }] },
      },
    },
  });
  const requirementSpec = (key: string) => ({
    requirements: [{ key, operator: 'In', values: ['x'] }],
  });

  it.each([
    ['kubernetes.azure.com/network-policy', false],
    ['kubernetes.azure.com/agentpool', true],
    ['karpenter.azure.com/sku-hyperv-generation', true],
    ['karpenter.azure.com/sku-family', false],
    ['agentpool', true],
  ])('Azure NodePool requirement key %s refused: %s', async (key, refused) => {
    const offline = await check('azure', 'NodePool', poolSpec({}, key));
    expect(offline.some((v) => v.apiServer === 'reject')).toBe(refused);
  });

  it('Azure NodePool labels: kubernetes.azure.com/role refused, kubernetes.azure.com/mode allowed', async () => {
    expect(
      (
        await check(
          'azure',
          'NodePool',
          poolSpec({ 'kubernetes.azure.com/role': 'agent' }, 'kubernetes.io/arch'),
        )
      ).length,
    ).toBe(1);
    expect(
      await check(
        'azure',
        'NodePool',
        poolSpec({ 'kubernetes.azure.com/mode': 'user' }, 'kubernetes.io/arch'),
      ),
    ).toEqual([]);
  });

  it('Azure NodeClaim and NodeOverlay requirement keys', async () => {
    await check('azure', 'NodeClaim', {
      spec: { nodeClassRef, ...requirementSpec('kubernetes.azure.com/kubelet-identity-client-id') },
    });
    await check('azure', 'NodeOverlay', {
      spec: { ...requirementSpec('karpenter.azure.com/sku-hyperv-generation'), price: '1' },
    });
  });

  it('AWS NodeClaim and NodeOverlay requirement keys in karpenter.k8s.aws', async () => {
    const ref = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' };
    const refused = await check('aws', 'NodeClaim', {
      spec: { nodeClassRef: ref, ...requirementSpec('karpenter.k8s.aws/instance-colour') },
    });
    expect(refused).toHaveLength(1);
    expect(
      await check('aws', 'NodeClaim', {
        spec: { nodeClassRef: ref, ...requirementSpec('karpenter.k8s.aws/instance-family') },
      }),
    ).toEqual([]);
    await check('aws', 'NodeOverlay', {
      spec: { ...requirementSpec('karpenter.k8s.aws/instance-colour'), price: '1' },
    });
  });
});
