/**
 * The controller SIGKILLed in the middle of a replace command on the real control plane, then
 * restarted (upstream: the queue lives in memory; after a crash the first pass
 * removes the `karpenter.sh/disrupted` taint and `DisruptionReason` that no command holds).
 *
 * The command: a NodePool template label change drifts the one node of the pool, which holds
 * every pod of a Deployment (three one-core pods on a 4-core instance type), so drift replaces
 * it: taint the Node and set `DisruptionReason`, create a replacement NodeClaim, wait for it to
 * initialize, delete the candidate, drain it. The test plays the kubelet's pod status (bound pods
 * become Running and Ready half a second later), and a PodDisruptionBudget (`maxUnavailable: 1`)
 * makes the drain evict one pod at a time, so the drain lasts long enough to be killed in. One
 * run per point, each on the node the run before left:
 * (a) just after the candidate Node is tainted `karpenter.sh/disrupted` (seen on a watch);
 * (b) just after the replacement NodeClaim appears, before it is launched (seen on a watch);
 * (b2) after the replacement's machine runs but before its launch is recorded on the NodeClaim
 *     (no provider ID yet): the restarted controller must find that machine, not launch another;
 *     for both the controller runs with `--sim-create-delay 20s` (the launch answers 20 s after
 *     the machine runs);
 * (c) during the drain: the candidate NodeClaim is deleting and its pods are being evicted.
 * After a restart and a bounded settle: no Node is tainted `karpenter.sh/disrupted` unless it is
 * being deleted; no NodeClaim keeps `DisruptionReason`; every sim machine has a NodeClaim and
 * every NodeClaim a machine and a provider ID; every pod of the Deployment is bound to a live node
 * of the pool and Running (the Deployment reports them ready); every candidate ends deleted or
 * restored (untainted, without `DisruptionReason`); and the drift is carried out (one node on
 * the new template).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeClaim, NodePool, Pod } from '@karpenter-ts/api';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, machinesIn, Workload, type List } from './support.js';

const simCrd = new URL('../../crds/karpenter.sim_simnodeclasses.yaml', import.meta.url).pathname;

const NAME = 'disruption-crash';
const PODS = 3;
const INSTANCE_TYPE = 'c-4x-amd64-linux';
const DISRUPTED = 'karpenter.sh/disrupted';
const REVISION = 'e2e.karpenter-ts/revision';
/** How long the kubelet stand-in waits after a pod is bound before it reports it Ready. */
const READY_AFTER_MS = 500;
const SETTLE_MS = 120_000;

interface NodeObj {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { providerID?: string; taints?: { key: string; effect: string }[] };
}

let api: KubeConnection;
let kubeconfig: string;
let stateDir: string;
let workload: Workload;
let controller: ControllerProcess | undefined;
let podKubelet: PodKubelet | undefined;

const args = (extra: string[] = []) => [
  '--kubeconfig',
  kubeconfig,
  '--disable-leader-election',
  '--sim-state-dir',
  stateDir,
  ...extra,
];

const tainted = (n: NodeObj) => (n.spec?.taints ?? []).some((t) => t.key === DISRUPTED);
const hasDisruptionReason = (c: NodeClaim) =>
  (c.status?.conditions ?? []).some((x) => x.type === 'DisruptionReason');
const isTrue = (c: NodeClaim, type: string) =>
  (c.status?.conditions ?? []).some((x) => x.type === type && x.status === 'True');

/**
 * The pod half of a kubelet, which the sim's kwok-like kubelets do not play: every pod of the
 * namespace bound to a node for {@link READY_AFTER_MS} becomes Running and Ready, so the
 * Deployment counts it available and the PodDisruptionBudget healthy.
 */
class PodKubelet {
  readonly #boundAt = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  errors: string[] = [];

  constructor(
    private readonly api: KubeConnection,
    private readonly namespace: string,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.#sync(), 200);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #sync(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const pods = await this.api.request<List<Pod>>(
        'GET',
        `/api/v1/namespaces/${this.namespace}/pods`,
      );
      const now = Date.now();
      for (const pod of pods.items) {
        const uid = pod.metadata?.uid ?? '';
        if (!pod.spec?.nodeName || pod.metadata?.deletionTimestamp) continue;
        if (pod.status?.phase === 'Running') continue;
        const at = this.#boundAt.get(uid) ?? now;
        this.#boundAt.set(uid, at);
        if (now - at < READY_AFTER_MS) continue;
        const time = new Date().toISOString();
        await this.api
          .request(
            'PATCH',
            `/api/v1/namespaces/${this.namespace}/pods/${pod.metadata?.name}/status`,
            {
              body: {
                status: {
                  phase: 'Running',
                  startTime: time,
                  conditions: [
                    { type: 'Initialized', status: 'True', lastTransitionTime: time },
                    { type: 'ContainersReady', status: 'True', lastTransitionTime: time },
                    { type: 'Ready', status: 'True', lastTransitionTime: time },
                  ],
                },
              },
              contentType: 'application/strategic-merge-patch+json',
            },
          )
          .catch((err: unknown) => {
            if (!/not ?found/i.test(String(err))) this.errors.push(String(err));
          });
      }
    } catch (err) {
      this.errors.push(String(err));
    } finally {
      this.#busy = false;
    }
  }
}

/** The pool: one instance type, every node disruptable at once, empty nodes consolidated. */
async function createPool(): Promise<void> {
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAME } },
  });
  await api.request('POST', '/apis/karpenter.sim/v1/simnodeclasses', {
    body: { apiVersion: 'karpenter.sim/v1', kind: 'SimNodeClass', metadata: { name: NAME } },
  });
  const pool: NodePool = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: NAME },
    spec: {
      template: {
        metadata: { labels: { [REVISION]: 'initial' } },
        spec: {
          nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: NAME },
          requirements: [
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [INSTANCE_TYPE] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
        },
      },
      disruption: {
        consolidationPolicy: 'WhenEmpty',
        consolidateAfter: '10s',
        budgets: [{ nodes: '100%' }],
      },
    },
  };
  await api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
  await api.request('POST', `/apis/policy/v1/namespaces/${NAME}/poddisruptionbudgets`, {
    body: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: NAME, namespace: NAME },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: NAME } } },
    },
  });
}

async function nodes(): Promise<NodeObj[]> {
  return (
    await api.request<List<NodeObj>>(
      'GET',
      `/api/v1/nodes?labelSelector=karpenter.sh%2Fnodepool%3D${NAME}`,
    )
  ).items;
}

/** A one-line picture of the pool for the log and failure messages. */
async function snapshot(): Promise<string> {
  const claims = await workload.nodeClaims();
  const ns = await nodes();
  const pods = await workload.pods();
  const machines = machinesIn(stateDir).map((m) => m.instance.nodeClaimName);
  const claim = (c: NodeClaim) =>
    `${c.metadata.name}[${[
      c.status?.providerID ? 'launched' : 'no-providerID',
      isTrue(c, 'Initialized') ? 'init' : '',
      c.metadata.deletionTimestamp ? 'deleting' : '',
      isTrue(c, 'Drifted') ? 'drifted' : '',
      hasDisruptionReason(c) ? 'DisruptionReason' : '',
    ]
      .filter(Boolean)
      .join(',')}]`;
  const node = (n: NodeObj) =>
    `${n.metadata.name}[${[
      tainted(n) ? 'tainted' : '',
      n.metadata.deletionTimestamp ? 'deleting' : '',
    ]
      .filter(Boolean)
      .join(',')}]`;
  const pod = (p: Pod) =>
    `${p.metadata?.name}@${p.spec?.nodeName ?? '-'}/${p.status?.phase ?? '?'}${p.metadata?.deletionTimestamp ? '/deleting' : ''}`;
  return `claims ${claims.map(claim).join(' ')}; nodes ${ns.map(node).join(' ')}; machines ${machines.join(' ')}; pods ${pods.map(pod).join(' ')}`;
}

/** What is wrong with the pool now (empty when the run has settled as it must). */
async function violations(candidates: readonly string[], revision: string): Promise<string[]> {
  const out: string[] = [];
  const claims = await workload.nodeClaims();
  const ns = await nodes();
  const pods = await workload.pods();
  const machines = machinesIn(stateDir);
  for (const n of ns)
    if (tainted(n) && !n.metadata.deletionTimestamp)
      out.push(`node ${n.metadata.name} is tainted ${DISRUPTED} and not being deleted`);
  for (const c of claims)
    if (hasDisruptionReason(c)) out.push(`node claim ${c.metadata.name} keeps DisruptionReason`);
  const claimNames = new Set(claims.map((c) => c.metadata.name ?? ''));
  for (const m of machines)
    if (!claimNames.has(m.instance.nodeClaimName))
      out.push(`machine ${m.instance.nodeClaimName} has no node claim`);
  const machineNames = new Set(machines.map((m) => m.instance.nodeClaimName));
  for (const c of claims) {
    if (!machineNames.has(c.metadata.name ?? ''))
      out.push(`node claim ${c.metadata.name} has no machine`);
    if (!c.status?.providerID) out.push(`node claim ${c.metadata.name} has no provider ID`);
  }
  const live = new Set(
    ns.filter((n) => !n.metadata.deletionTimestamp && !tainted(n)).map((n) => n.metadata.name),
  );
  const running = pods.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      live.has(p.spec?.nodeName ?? '') &&
      p.status?.phase === 'Running',
  );
  if (running.length !== PODS || pods.length !== PODS)
    out.push(
      `${running.length} of ${PODS} pods Running on live nodes of the pool (${pods.length} pods)`,
    );
  const deployment = await api.request<{ status?: { readyReplicas?: number } }>(
    'GET',
    `/apis/apps/v1/namespaces/${NAME}/deployments/${NAME}`,
  );
  if ((deployment.status?.readyReplicas ?? 0) !== PODS)
    out.push(`the Deployment reports ${deployment.status?.readyReplicas ?? 0} of ${PODS} ready`);
  for (const name of candidates) {
    const c = claims.find((x) => x.metadata.name === name);
    const n = ns.find((x) => x.metadata.name === name);
    if (c === undefined && n === undefined) continue; // deleted
    if (c?.metadata.deletionTimestamp || n?.metadata.deletionTimestamp) {
      out.push(`candidate ${name} is still being deleted`);
      continue;
    }
    if ((n && tainted(n)) || (c && hasDisruptionReason(c)))
      out.push(`candidate ${name} is neither deleted nor restored`);
  }
  // The drift itself is carried out: one node, on the new template, nothing drifted.
  if (claims.length !== 1) out.push(`${claims.length} node claims (one node holds every pod)`);
  for (const c of claims) {
    if (c.metadata.labels?.[REVISION] !== revision)
      out.push(`node claim ${c.metadata.name} is not of revision ${revision}`);
    if (!isTrue(c, 'Initialized')) out.push(`node claim ${c.metadata.name} is not initialized`);
  }
  return out;
}

/** Waits until {@link violations} is empty; fails listing what is still wrong. */
async function settle(candidates: readonly string[], revision: string): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  let last: string[] = [];
  while (Date.now() < deadline) {
    try {
      last = await violations(candidates, revision);
      if (last.length === 0) return;
    } catch (err) {
      last = [String(err)];
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `not settled ${SETTLE_MS / 1000} s after the restart:\n- ${last.join('\n- ')}\n${await snapshot()}\nrestarted controller's last logs:\n${(
      controller?.logs ?? []
    )
      .slice(-25)
      .map((l) => JSON.stringify(l))
      .join('\n')}`,
  );
}

/** The pool's one node claim (the run's candidate), once everything is settled. */
async function steadyCandidate(revision: string): Promise<string> {
  await settle([], revision);
  const [claim] = await workload.nodeClaims();
  return claim?.metadata.name ?? '';
}

async function changeTemplate(revision: string): Promise<void> {
  await api.request('PATCH', `/apis/karpenter.sh/v1/nodepools/${NAME}`, {
    body: { spec: { template: { metadata: { labels: { [REVISION]: revision } } } } },
    contentType: 'application/merge-patch+json',
  });
}

/** Kills the controller the moment a watch event on `path` satisfies `hit`. */
async function killOnWatch(
  path: string,
  hit: (type: string, object: unknown) => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const victim = controller;
  if (victim === undefined) throw new Error('no controller to kill');
  let stream: { abort(): void } | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`)),
        timeoutMs,
      );
      void api
        .watch(
          path,
          { labelSelector: `karpenter.sh/nodepool=${NAME}` },
          (type, object) => {
            if (!hit(type, object)) return;
            process.kill(victim.pid, 'SIGKILL');
            clearTimeout(timer);
            resolve();
          },
          (err) => {
            if (err) reject(err instanceof Error ? err : new Error(String(err)));
          },
        )
        .then((s) => (stream = s), reject);
    });
  } finally {
    stream?.abort();
  }
  await victim.exited;
  controller = undefined;
}

/** After the kill: restart without faults and settle (`atKill`: the picture at the kill). */
async function restartAndSettle(
  candidate: string,
  revision: string,
  atKill: string,
): Promise<NodeClaim> {
  console.info(`killed: ${atKill}`);
  const restarted = await startController(`${NAME}-restarted`, args());
  controller = restarted;
  await settle([candidate], revision);
  const [claim] = await workload.nodeClaims();
  const initialized = claim?.status?.conditions?.find((c) => c.type === 'Initialized');
  const commands = restarted.logs
    .filter((l) => l.message === 'disrupting node(s)')
    .map((l) => `${l.time} ${JSON.stringify(l['nodes'])} -> ${JSON.stringify(l['replacements'])}`);
  console.info(
    `settled: ${await snapshot()}\n  ${claim?.metadata.name} initialized ${String(initialized?.lastTransitionTime)}; commands after the restart: ${commands.join('; ') || 'none'}`,
  );
  if (claim === undefined) throw new Error('no node claim after settling');
  return claim;
}

beforeAll(async () => {
  kubeconfig = inject('kubeconfig');
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  stateDir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'karpenter-ts-sim-state.'));
  workload = new Workload(api, NAME, PODS);
});

afterAll(async () => {
  try {
    if (controller !== undefined) await workload.remove();
  } finally {
    podKubelet?.stop();
    await controller?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

describe('a controller killed in the middle of a drift replace command', () => {
  it('provisions one node for the Deployment', async () => {
    controller = await startController(NAME, args());
    await createPool();
    await workload.poolReady();
    await workload.deploy();
    podKubelet = new PodKubelet(api, NAME);
    podKubelet.start();
    await steadyCandidate('initial');
  });

  it('(a) killed just after the candidate Node is tainted: restarted, the taint is removed or the node replaced, nothing leaks', async () => {
    const candidate = await steadyCandidate('initial');
    await changeTemplate('a');
    await killOnWatch(
      '/api/v1/nodes',
      (_type, object) => {
        const n = object as NodeObj;
        return n.metadata.name === candidate && tainted(n) && !n.metadata.deletionTimestamp;
      },
      60_000,
      `node ${candidate} to be tainted ${DISRUPTED}`,
    );
    const atKill = await snapshot();
    expect(atKill).toContain(`${candidate}[tainted]`);
    await restartAndSettle(candidate, 'a', atKill);
  });

  it('(b) killed just after the replacement NodeClaim appears (not launched yet): restarted, nothing leaks', async () => {
    const candidate = await steadyCandidate('a');
    // A slow cloud: the replacement's launch answers 20 s after its machine runs.
    await controller?.stop();
    controller = await startController(`${NAME}-slow`, args(['--sim-create-delay', '20s']));
    const before = new Set((await workload.nodeClaims()).map((c) => c.metadata.name));
    await changeTemplate('b');
    await killOnWatch(
      '/apis/karpenter.sh/v1/nodeclaims',
      (type, object) => type === 'ADDED' && !before.has((object as NodeClaim).metadata.name),
      60_000,
      'the replacement NodeClaim',
    );
    const claims = await workload.nodeClaims();
    const replacement = claims.find((c) => c.metadata.name !== candidate);
    expect(replacement, await snapshot()).toBeDefined();
    expect(replacement?.status?.providerID ?? '').toBe('');
    await restartAndSettle(candidate, 'b', await snapshot());
  });

  it('(b2) killed after the replacement machine runs but before its launch is recorded: restarted, the machine is found, not launched twice', async () => {
    const candidate = await steadyCandidate('b');
    await controller?.stop();
    controller = await startController(`${NAME}-slow`, args(['--sim-create-delay', '20s']));
    const before = new Set(machinesIn(stateDir).map((m) => m.instance.nodeClaimName));
    await changeTemplate('b2');
    const machine = await eventually(
      'the replacement machine to run',
      async () => machinesIn(stateDir).find((m) => !before.has(m.instance.nodeClaimName)),
      60_000,
    );
    await controller?.crash();
    controller = undefined;
    const atKill = await snapshot();
    const replacement = (await workload.nodeClaims()).find(
      (c) => c.metadata.name === machine.instance.nodeClaimName,
    );
    expect(replacement, atKill).toBeDefined();
    expect(replacement?.status?.providerID ?? '', atKill).toBe('');
    const settled = await restartAndSettle(candidate, 'b2', atKill);
    // The replacement kept the machine launched before the crash.
    expect(settled.metadata.name).toBe(machine.instance.nodeClaimName);
    expect(settled.status?.providerID).toBe(machine.instance.providerID);
  });

  it('(c) killed during the drain (candidate deleting, pods being evicted): restarted, the drain finishes, no pod lost', async () => {
    const candidate = await steadyCandidate('b2');
    await changeTemplate('c');
    // Deleting, at least one pod moved off it and at least one still on it.
    await eventually(
      `the drain of ${candidate} to be under way`,
      async () => {
        const claim = (await workload.nodeClaims()).find((c) => c.metadata.name === candidate);
        if (!claim?.metadata.deletionTimestamp) return false;
        const pods = await workload.pods();
        const on = pods.filter(
          (p) => p.spec?.nodeName === candidate && !p.metadata?.deletionTimestamp,
        );
        return on.length > 0 && on.length < PODS;
      },
      90_000,
    );
    const victim = controller;
    if (victim !== undefined) await victim.crash();
    controller = undefined;
    const atKill = await snapshot();
    expect(atKill).toMatch(new RegExp(`${candidate}\\[[^\\]]*deleting`));
    await restartAndSettle(candidate, 'c', atKill);
    expect(podKubelet?.errors ?? []).toEqual([]);
  });
});
