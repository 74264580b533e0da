/**
 * A real cluster snapshot (issue 12, Tests): after the controller provisions on the local control
 * plane (sim provider, kwok-like Nodes, the real kube-scheduler and kube-controller-manager),
 * `kubectl get nodes,pods,nodeclaims,nodepools,... -A -o yaml` is what `karpenter-ts` reads, so
 * the format is kubectl's, not hand-written:
 * - on the provisioned cluster, `simulate` creates no new node claim (every pod runs), and
 *   `disrupt` finds no command: every node is inside its `consolidateAfter`, and says until when;
 * - after the Deployments are scaled down, `disrupt --until-stable` on the snapshot then taken
 *   predicts the commands the running controller then takes: the same reasons and candidates,
 *   command by command, the same replacement instance types, and the same fleet at the end.
 * Two NodePools, each with its own Deployment (pods select their pool): `shrink` scales 6 pods to
 * 1 on its one node (single-node consolidation replaces it with a cheaper one), `drain` scales 2
 * pods to 0 (emptiness deletes its node). Neither pool's pods can move to the other's nodes, so
 * the commands do not depend on each other, nor on which of the controller's 10 s passes sees
 * which `consolidateAfter` end first (a phase a snapshot cannot know); they are compared as a set.
 * The CLI runs as its built binary (apps/cli/dist/main.js), as a user runs it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NodeClaim, NodePool, Pod } from '@karpenter-ts/api';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createLogger,
  parseOptions,
  startOperator,
  type RunningOperator,
} from '../../src/index.js';
import { eventually, logSink, type List } from './support.js';

const exec = promisify(execFile);
const simCrd = new URL('../../crds/karpenter.sim_simnodeclasses.yaml', import.meta.url).pathname;
const cliMain = new URL('../../../cli/dist/main.js', import.meta.url).pathname;

/** The two scenarios: pool (and namespace, Deployment) name, pods before and after. */
const Shrink = { name: 'shrink', from: 6, to: 1 } as const;
const Drain = { name: 'drain', from: 2, to: 0 } as const;
const Scenarios = [Shrink, Drain];
/** Long enough to take the snapshot and run the CLI after the scale-down, before it ends. */
const ConsolidateAfter = '20s';

/** The kinds the issue's command lists, with the sim cloud's NodeClass for the providers' ones. */
const SnapshotKinds =
  'nodes,pods,nodeclaims,nodepools,simnodeclasses,daemonsets,pdb,pv,pvc,storageclasses,deployments,replicasets,statefulsets,jobs';

let api: KubeConnection;
let kubeconfig: string;
let operator: RunningOperator;
let dir: string;
const logLines: string[] = [];

const get = <T>(path: string) => api.request<T>('GET', path);

/** kubectl of tools/local-cluster: `$KUBECTL`, else the cache's build. */
function kubectl(): string {
  const cache = process.env['KARPENTER_TS_CACHE'] ?? join(homedir(), '.cache', 'karpenter-ts');
  return (
    process.env['KUBECTL'] ??
    join(cache, 'kube', process.env['KUBE_VERSION'] ?? 'v1.36.3', 'bin', 'kubectl')
  );
}

/** `kubectl get <kinds> -A -o yaml` into `<dir>/<file>`; returns its path. */
async function snapshot(file: string): Promise<string> {
  const { stdout } = await exec(
    kubectl(),
    ['--kubeconfig', kubeconfig, 'get', SnapshotKinds, '-A', '-o', 'yaml'],
    { maxBuffer: 64 << 20 },
  );
  const path = join(dir, file);
  await writeFile(path, stdout);
  return path;
}

/** `karpenter-ts <args>` (the built binary): its exit code and the JSON it printed. */
async function karpenterTs<T>(...args: string[]): Promise<{ code: number; json: T }> {
  let stdout: string;
  let stderr: string;
  let code = 0;
  try {
    ({ stdout, stderr } = await exec(process.execPath, [cliMain, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 64 << 20,
    }));
  } catch (err) {
    ({ code, stdout, stderr } = err as { code: number; stdout: string; stderr: string });
  }
  if (stdout === '') throw new Error(`karpenter-ts ${args.join(' ')}: exit ${code}: ${stderr}`);
  return { code, json: JSON.parse(stdout) as T };
}

interface NodeVerdict {
  name: string;
  nodePool?: string;
  instanceType?: string;
  reason: string;
}
interface PredictedCommand {
  method: string;
  reason: string;
  decision: string;
  candidates: { name: string }[];
  launched: { instanceType: string }[];
}

const claimsOf = async (pool: string) =>
  (
    await get<List<NodeClaim>>(
      `/apis/karpenter.sh/v1/nodeclaims?labelSelector=karpenter.sh%2Fnodepool%3D${pool}`,
    )
  ).items;
const podsOf = async (ns: string) =>
  (await get<List<Pod>>(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${ns}`)).items;
const typeOf = (c: NodeClaim) => c.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '?';
const nodeOf = (c: NodeClaim) => c.status?.nodeName ?? '';

/** `replicas` pods, none terminating, all bound; every NodeClaim Initialized and none deleting. */
async function settled(pool: string, replicas: number): Promise<NodeClaim[] | undefined> {
  const [ps, cs] = await Promise.all([podsOf(pool), claimsOf(pool)]);
  const ok =
    ps.length === replicas &&
    ps.every((p) => p.metadata?.deletionTimestamp === undefined && p.spec?.nodeName) &&
    cs.every(
      (c) =>
        c.metadata.deletionTimestamp === undefined &&
        c.status?.conditions?.some((x) => x.type === 'Initialized' && x.status === 'True'),
    );
  return ok ? cs : undefined;
}

/** Every scenario settled at `replicas(s)` pods: its NodeClaims by pool. */
async function allSettled(
  replicas: (s: (typeof Scenarios)[number]) => number,
): Promise<Map<string, NodeClaim[]> | undefined> {
  const out = new Map<string, NodeClaim[]>();
  for (const s of Scenarios) {
    const cs = await settled(s.name, replicas(s));
    if (cs === undefined) return undefined;
    out.set(s.name, cs);
  }
  return out;
}

/** Namespace, SimNodeClass, NodePool (linux/amd64 on-demand, at most 8 cores) and Deployment. */
async function createScenario(name: string, replicas: number): Promise<void> {
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  await api.request('POST', '/apis/karpenter.sim/v1/simnodeclasses', {
    body: { apiVersion: 'karpenter.sim/v1', kind: 'SimNodeClass', metadata: { name } },
  });
  const pool: NodePool = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: ConsolidateAfter,
        budgets: [{ nodes: '100%' }],
      },
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name },
          requirements: [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'karpenter.kwok.sh/instance-cpu', operator: 'Lt', values: ['9'] },
          ],
        },
      },
    },
  } as NodePool;
  await api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
  await eventually(
    `NodePool ${name} to be Ready`,
    async () =>
      (await get<NodePool>(`/apis/karpenter.sh/v1/nodepools/${name}`)).status?.conditions?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ),
    30_000,
  );
  await eventually(
    `the default service account of ${name}`,
    () => get(`/api/v1/namespaces/${name}/serviceaccounts/default`),
    30_000,
  );
  await api.request('POST', `/apis/apps/v1/namespaces/${name}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            nodeSelector: { 'karpenter.sh/nodepool': name },
            terminationGracePeriodSeconds: 0,
            containers: [
              {
                name: 'pause',
                image: 'registry.k8s.io/pause:3.10',
                resources: { requests: { cpu: '1', memory: '1Gi' } },
              },
            ],
          },
        },
      },
    },
  });
}

/** Removes a scenario's objects while the controller runs (it drains and deletes the nodes). */
async function removeScenario(name: string): Promise<void> {
  const quietly = (p: Promise<unknown>) => p.catch(() => undefined);
  await quietly(
    api.request('DELETE', `/apis/apps/v1/namespaces/${name}/deployments/${name}`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
    }),
  );
  await quietly(
    eventually(`the pods of ${name} to go`, async () => (await podsOf(name)).length === 0, 60_000),
  );
  for (const c of await claimsOf(name).catch(() => []))
    await quietly(api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`));
  await quietly(
    eventually(
      `the node claims of ${name} to go`,
      async () => (await claimsOf(name)).length === 0,
      60_000,
    ),
  );
  await quietly(api.request('DELETE', `/apis/karpenter.sh/v1/nodepools/${name}`));
  await quietly(api.request('DELETE', `/apis/karpenter.sim/v1/simnodeclasses/${name}`));
  await quietly(api.request('DELETE', `/api/v1/namespaces/${name}`));
}

beforeAll(async () => {
  if (!existsSync(cliMain)) throw new Error(`${cliMain} is missing: run "npm run build" first`);
  kubeconfig = inject('kubeconfig');
  dir = await mkdtemp(join(tmpdir(), 'karpenter-ts-snapshot-e2e-'));
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  const parsed = parseOptions(
    ['--kubeconfig', kubeconfig, '--leader-election-namespace', 'default'].concat([
      '--metrics-port',
      '0',
      '--health-probe-port',
      '0',
    ]),
    {},
  );
  if (parsed.kind !== 'run') throw new Error(parsed.output);
  operator = await startOperator(parsed.options, {
    version: 'e2e',
    handleSignals: false,
    logger: createLogger({
      level: 'info',
      outputPaths: ['stdout'],
      commit: 'e2e',
      stream: logSink(logLines),
    }),
  });
  for (const s of Scenarios) await createScenario(s.name, s.from);
});

afterAll(async () => {
  if (api !== undefined) for (const s of Scenarios) await removeScenario(s.name);
  await operator?.shutdown('end of test');
});

describe('karpenter-ts on a snapshot of the local control plane', () => {
  let provisioned: Map<string, NodeClaim[]>;

  it('simulate on the provisioned cluster creates no node claim, and disrupt finds nothing to do: every node is inside its consolidateAfter', async () => {
    provisioned = await eventually(
      'every pod bound to initialized nodes',
      () => allSettled((s) => s.from),
      120_000,
    );
    const file = await snapshot('provisioned.yaml');
    const { code, json } = await karpenterTs<{
      commands: unknown[];
      pendingPods: number;
      nodes: NodeVerdict[];
    }>('disrupt', file, '-o', 'json');
    expect(code).toBe(0);
    expect(json.pendingPods).toBe(0);
    expect(json.commands).toEqual([]);
    // simulate reads the same snapshot: every pod runs, nothing to provision.
    const simulated = await karpenterTs<{ nodeClaims: unknown[]; podErrors: unknown[] }>(
      'simulate',
      file,
      '--cloud',
      'sim',
      '-o',
      'json',
    );
    expect(simulated.code).toBe(0);
    expect(simulated.json.nodeClaims).toEqual([]);
    expect(simulated.json.podErrors).toEqual([]);
    for (const s of Scenarios) {
      const ours = json.nodes.filter((n) => n.nodePool === s.name);
      expect(ours.map((n) => n.name).sort()).toEqual(provisioned.get(s.name)!.map(nodeOf).sort());
      for (const n of ours) expect(n.reason).toMatch(/^consolidatable at \d{4}-\d\d-\d\dT/);
    }
  });

  it('disrupt --until-stable on the snapshot after the scale-downs predicts the commands the controller then takes', async () => {
    for (const s of Scenarios)
      await api.request('PATCH', `/apis/apps/v1/namespaces/${s.name}/deployments/${s.name}`, {
        body: { spec: { replicas: s.to } },
        contentType: 'application/merge-patch+json',
      });
    const before = await eventually('the scale-downs', () => allSettled((s) => s.to), 60_000);
    const file = await snapshot('scaled-down.yaml');
    const taken = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const { code, json } = await karpenterTs<{
      stable: boolean;
      commands: PredictedCommand[];
      final: { nodes: NodeVerdict[] };
    }>('disrupt', file, '--now', taken, '--until-stable', '-o', 'json');
    expect(code).toBe(0);
    expect(json.stable).toBe(true);
    const ours = new Set([...before.values()].flat().map(nodeOf));
    const predicted = json.commands.filter((c) => c.candidates.some((x) => ours.has(x.name)));
    // Emptiness takes the drained pool's node; consolidation replaces the shrunk one.
    expect(predicted.map((c) => [c.method, c.decision]).sort()).toEqual([
      ['emptiness', 'delete'],
      ['single-node-consolidation', 'replace'],
    ]);
    const removed = predicted.flatMap((c) => c.candidates.map((x) => x.name)).sort();
    const launched = predicted.flatMap((c) => c.launched.map((l) => l.instanceType)).sort();

    // The controller: every predicted candidate goes and the predicted types come.
    const after = await eventually(
      `the controller to remove ${removed.join(', ')} and launch ${launched.join(', ')}`,
      async () => {
        const now = await allSettled((s) => s.to);
        if (now === undefined) return undefined;
        const claims = [...now.values()].flat();
        if (claims.some((c) => removed.includes(nodeOf(c)))) return undefined;
        const added = claims.filter((c) => !ours.has(nodeOf(c)));
        return added.length === launched.length ? { claims, added } : undefined;
      },
      150_000,
    );
    expect(after.added.map(typeOf).sort()).toEqual(launched);
    const finalFleet = json.final.nodes
      .filter((n) => Scenarios.some((s) => s.name === n.nodePool))
      .map((n) => n.instanceType)
      .sort();
    expect(after.claims.map(typeOf).sort()).toEqual(finalFleet);

    // Command by command: the controller's Disrupted events name the same reasons and candidates.
    const events = (
      await get<List<{ involvedObject: { name?: string }; message?: string }>>(
        `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.kind=Node,reason=Disrupted')}`,
      )
    ).items.filter((e) => removed.includes(e.involvedObject.name ?? ''));
    const happened = [...new Set(events.map((e) => e.message ?? ''))].map((m) => {
      const match = /node\(s\) \((\w+)\)(?: and replace with [^:]*)?: (.+)$/.exec(m);
      return [match?.[1] ?? m, (match?.[2] ?? '').split(', ').sort()];
    });
    expect(happened.sort()).toEqual(
      predicted.map((c) => [c.reason, c.candidates.map((x) => x.name).sort()]).sort(),
    );
  });
});
