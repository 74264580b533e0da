import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const deploy = new URL('../../../deploy/', import.meta.url).pathname;
const chart = `${deploy}charts/karpenter-ts/`;

/**
 * A template with its Go-template actions removed: lines that are only an action go, inline
 * actions become `x`. Every provider branch stays, so the result is the union of all renderings.
 */
function stripTemplate(path: string): unknown[] {
  const text = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*\{\{.*\}\}\s*$/.test(line))
    .map((line) => line.replace(/\{\{.*?\}\}/g, 'x'))
    .join('\n');
  return text.split(/^---$/m).map((doc) => parse(doc) as unknown);
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

function grants(rules: Rule[]): string[] {
  return rules
    .flatMap((r) =>
      r.apiGroups.flatMap((g) =>
        r.resources.flatMap((res) => r.verbs.map((v) => `${g || 'core'}/${res}:${v}`)),
      ),
    )
    .sort();
}

describe('Helm chart', () => {
  it('ships byte-identical copies of every CRD source (npm run chart:crds)', async () => {
    const { stdout } = await run('node', [`${deploy}scripts/sync-crds.mjs`, '--check']);
    expect(stdout).toContain('chart CRDs match their 6 sources');
  });

  it('grants exactly the verbs the controllers call, and no wildcards', () => {
    const [role] = stripTemplate(`${chart}templates/clusterrole.yaml`) as { rules: Rule[] }[];
    expect(grants(role?.rules ?? [])).toEqual(
      [
        // informers
        ...['pods', 'nodes'].flatMap((r) => ['get', 'list', 'watch'].map((v) => `core/${r}:${v}`)),
        ...['limitranges', 'persistentvolumeclaims', 'persistentvolumes'].flatMap((r) =>
          ['get', 'list', 'watch'].map((v) => `core/${r}:${v}`),
        ),
        ...['storageclasses', 'csinodes'].flatMap((r) =>
          ['get', 'list', 'watch'].map((v) => `storage.k8s.io/${r}:${v}`),
        ),
        ...['get', 'list', 'watch'].map((v) => `apps/daemonsets:${v}`),
        ...['get', 'list', 'watch'].map((v) => `policy/poddisruptionbudgets:${v}`),
        ...['get', 'list', 'watch'].map((v) => `karpenter.sh/nodepools:${v}`),
        'karpenter.sh/nodepools:patch',
        ...['update', 'patch'].map((v) => `karpenter.sh/nodepools/status:${v}`),
        ...['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'].map(
          (v) => `karpenter.sh/nodeclaims:${v}`,
        ),
        ...['update', 'patch'].map((v) => `karpenter.sh/nodeclaims/status:${v}`),
        ...['get', 'list', 'watch'].map((v) => `karpenter.sh/nodeoverlays:${v}`),
        ...['update', 'patch'].map((v) => `karpenter.sh/nodeoverlays/status:${v}`),
        ...['update', 'patch', 'delete'].map((v) => `core/nodes:${v}`),
        'core/pods/eviction:create',
        'core/pods:delete',
        ...['core', 'events.k8s.io'].flatMap((g) =>
          ['create', 'patch'].map((v) => `${g}/events:${v}`),
        ),
        // one branch per provider
        'core/nodes:create',
        ...['get', 'list', 'watch'].map((v) => `karpenter.sim/simnodeclasses:${v}`),
        ...['update', 'patch'].map((v) => `karpenter.sim/simnodeclasses/status:${v}`),
        ...['get', 'list', 'watch'].map((v) => `karpenter.azure.com/aksnodeclasses:${v}`),
        ...['update', 'patch'].map((v) => `karpenter.azure.com/aksnodeclasses/status:${v}`),
        ...['get', 'list', 'watch', 'update', 'patch'].map(
          (v) => `karpenter.k8s.aws/ec2nodeclasses:${v}`,
        ),
        ...['update', 'patch'].map((v) => `karpenter.k8s.aws/ec2nodeclasses/status:${v}`),
      ].sort(),
    );
  });

  it('limits Lease writes to the leader election Lease and the node heartbeat namespace', () => {
    const docs = stripTemplate(`${chart}templates/role.yaml`) as {
      kind: string;
      metadata: { namespace: string };
      rules?: Rule[];
    }[];
    const roles = docs.filter((d) => d.kind === 'Role');
    // The release namespace, azure.systemNamespace (maintenance window only), sim's heartbeats.
    expect(roles.map((r) => r.metadata.namespace)).toEqual(['x', 'x', 'kube-node-lease']);
    const leaderRules = roles[0]?.rules ?? [];
    expect(
      leaderRules
        .filter((r) => r.verbs.includes('update'))
        .every((r) => r.resourceNames?.[0] === 'karpenter-leader-election'),
    ).toBe(true);
  });

  it('lets the azure controller read only the maintenance window ConfigMap, in one namespace', () => {
    const docs = stripTemplate(`${chart}templates/role.yaml`) as {
      kind: string;
      metadata: { namespace: string };
      rules?: Rule[];
    }[];
    const configMapRules = docs
      .flatMap((d) => (d.kind === 'Role' ? (d.rules ?? []) : []))
      .filter((r) => r.resources.includes('configmaps'));
    // Two alternatives: the release namespace, or azure.systemNamespace when set elsewhere.
    const rule = {
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['upcoming-maintenance-window'],
      verbs: ['get'],
    };
    expect(configMapRules).toEqual([rule, rule]);
  });

  it('has values for provider, cluster name, image, resources, log level and Azure settings', () => {
    const values = parse(readFileSync(`${chart}values.yaml`, 'utf8')) as Record<string, unknown>;
    expect(values).toMatchObject({
      provider: 'sim',
      clusterName: '',
      logLevel: 'info',
      image: { repository: expect.any(String) },
      controller: { resources: { requests: { cpu: '1', memory: '1Gi' } } },
      azure: {
        subscriptionId: '',
        location: '',
        nodeResourceGroup: '',
        vnetSubnetID: '',
        clusterEndpoint: '',
        kubeletBootstrapToken: { secretName: '', key: 'token' },
        sshPublicKey: '',
        networkPlugin: 'azure',
        networkPluginMode: 'overlay',
        credential: { mode: 'workload-identity', clientID: '' },
      },
    });
  });
});
