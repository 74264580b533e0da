/**
 * Disruption on a real control plane (issue 11 "Tests"): the controller binary with `--provider
 * sim` (kwok-like Nodes), the real kube-controller-manager (ReplicaSets recreate evicted pods,
 * PodDisruptionBudget status) and the real kube-scheduler (binds the pods).
 *
 * Six scenarios, each with its own namespace, NodePool and Deployment, run at the same time
 * (started in beforeAll; each `it` awaits its scenario and checks what was recorded), so the
 * two minutes that expiration has to wait overlap the rest:
 * - consolidation: 200 pods scaled to 20 lose their empty and underused nodes, as the same
 *   disruption code run in memory predicts;
 * - block-pdb, block-dnd, block-budget: a PDB with `maxUnavailable: 0`, a
 *   `karpenter.sh/do-not-disrupt` pod and a budget of `nodes: "0"` keep an underused node, with
 *   an event naming why; lifting each block lets it go;
 * - drift: a template label change drifts the node claims and replaces them one at a time
 *   (budget `nodes: "1"`);
 * - expiration: `expireAfter: 2m` replaces the nodes.
 * Pods are small (195m cpu, 128Mi): the KWOK catalog's prices are linear in cores and memory, so
 * the cheapest home of 20 such pods is unique (see the consolidation scenario).
 */
import type { NodePool } from '@karpenter-ts/api';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fleetOf, predict, type Fleet, type Prediction } from './disruption-prediction.js';
import {
  DisruptedTaint,
  EvictedByApi,
  Scenario,
  sleep,
  waitFor,
  type ClaimObject,
  type EventObject,
  type PodObject,
} from './disruption-support.js';
import { startController, type ControllerProcess } from './process/controller-process.js';

const simCrd = new URL('../../crds/karpenter.sim_simnodeclasses.yaml', import.meta.url).pathname;

/** No pod of a scenario may stay unbound longer than this once disruption starts moving pods. */
const PendingLimitMs = 60_000;
/**
 * Each scenario bounds its own waits (their deadlines say what they waited for); an `it` awaits
 * a scenario that began in beforeAll, so its timeout only has to outlast those.
 */
const ScenarioTimeoutMs = 480_000;
/**
 * How long "the node stays" is watched: longer than a disruption pass (10 s poll) plus the 15 s
 * a consolidation command waits before it starts, so a command computed right after the state
 * was reached would have marked its candidates by then.
 */
const HoldMs = 30_000;

let api: KubeConnection;
let controller: ControllerProcess | undefined;
const scenarios: Scenario[] = [];
const runs: Promise<unknown>[] = [];

/** Starts a scenario's run now; its `it` awaits the result. */
function start<T>(run: () => Promise<T>): Promise<T> {
  const p = run();
  p.catch(() => undefined); // reported by the `it` that awaits it
  runs.push(p);
  return p;
}

const names = (items: readonly { metadata: { name: string } }[]) =>
  items.map((i) => i.metadata.name).sort();
const notEvictedByApi = (s: Scenario, podNames: readonly string[]) =>
  podNames.filter((n) => !s.pods.objects.get(`${s.name}/${n}`)?.conditions.has(EvictedByApi));

/**
 * Gives `count` pods of the node with the most pods a higher
 * `controller.kubernetes.io/pod-deletion-cost`: the ReplicaSet controller deletes the pods with
 * the lowest cost first, so on a scale-down to `count` these remain and the other nodes empty.
 */
async function keepOnFullestNode(
  s: Scenario,
  pods: readonly PodObject[],
  count: number,
): Promise<{ node: string; pods: string[] }> {
  const byNode = new Map<string, string[]>();
  for (const p of pods) {
    const n = p.spec?.nodeName ?? '';
    byNode.set(n, [...(byNode.get(n) ?? []), p.metadata.name]);
  }
  const [node, onNode] = [...byNode].sort((a, b) => b[1].length - a[1].length)[0] ?? ['', []];
  const keep = onNode.slice(0, count);
  if (keep.length < count) throw new Error(`no node of ${s.name} holds ${count} pods`);
  await Promise.all(
    keep.map((name) =>
      s.api.request('PATCH', `/api/v1/namespaces/${s.name}/pods/${name}`, {
        body: {
          metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '100' } },
        },
        contentType: 'application/merge-patch+json',
      }),
    ),
  );
  return { node, pods: keep };
}

// ---- consolidation ------------------------------------------------------------------------

interface ConsolidationResult {
  readonly before: Fleet;
  readonly beforeNodes: readonly string[];
  /** The node the 20 remaining pods were on, and those pods. */
  readonly kept: { readonly node: string; readonly pods: readonly string[] };
  readonly prediction: Prediction;
  readonly after: Fleet;
  readonly finalPods: readonly PodObject[];
  readonly finalClaims: readonly ClaimObject[];
  readonly disrupted: readonly EventObject[];
  /** What happened to the final NodeClaims in the 30 s after (nothing, if it was the end). */
  readonly movedAfter: readonly string[];
}

/**
 * Holds for {@link HoldMs} and returns how the NodeClaims `claims` (and their Nodes, named the
 * same) were marked, tainted or deleted meanwhile, or how the pool's claims changed; empty when
 * nothing moved.
 */
async function nothingMoves(s: Scenario, claims: readonly string[]): Promise<string[]> {
  await sleep(HoldMs);
  const moved: string[] = [];
  for (const name of claims) {
    const claim = s.claims.objects.get(name);
    if (claim === undefined) moved.push(`no history of node claim ${name}`);
    if (claim?.deletingSeen !== undefined) moved.push(`${name} deleting`);
    for (const c of claim?.conditions ?? [])
      if (c.startsWith('DisruptionReason/')) moved.push(`${name} ${c}`);
    const node = s.nodes.objects.get(name);
    if (node?.deletingSeen !== undefined) moved.push(`node ${name} deleting`);
    if (node?.taints.has(DisruptedTaint)) moved.push(`node ${name} tainted`);
  }
  const now = await s.listClaims();
  for (const name of claims)
    if (!now.some((c) => c.metadata.name === name && !c.metadata.deletionTimestamp))
      moved.push(`${name} gone or deleting; claims now ${await s.describe()}`);
  return moved;
}

/**
 * 200 pods, then the Deployment scaled to 20, keeping 20 pods on the fullest node (see
 * {@link keepOnFullestNode}) so the other nodes end empty. Then emptiness removes the empty
 * nodes and consolidation replaces the underused one (single-node, or multi-node together with
 * another scenario's node whose pods fit elsewhere in its own pool).
 *
 * `consolidateAfter: 20s`: the ReplicaSet controller deletes 180 pods at its 20 requests/s
 * for ~9 s, and each deletion is a pod event that restarts the wait, so consolidation starts
 * from the scaled-down state instead of racing the deletions (a multi-node command computed
 * half-way would move pods that are about to be deleted anyway, and the path would differ from
 * run to run). The prediction runs the same NodePool, so the same wait.
 */
async function runConsolidation(s: Scenario): Promise<ConsolidationResult> {
  await s.deploy(200);
  const settled = await waitFor('200 pods bound to settled nodes', () => s.settled(200), 180_000, {
    describe: () => s.describe(),
  });
  const before = fleetOf(settled.claims);

  // What the disruption code predicts in memory for the same pool (as stored, defaults
  // applied), pod spec (as the Deployment stored it) and catalog.
  const pool = await s.get<NodePool>(`/apis/karpenter.sh/v1/nodepools/${s.name}`);
  const deployment = await s.get<{ spec: { template: { spec: PodObject['spec'] } } }>(
    `/apis/apps/v1/namespaces/${s.name}/deployments/${s.name}`,
  );
  const prediction = await predict(pool, deployment.spec.template.spec as never, 200, 20);

  const kept = await keepOnFullestNode(s, settled.pods, 20);
  const scaledAt = Date.now();
  await s.scale(20);
  const beforeNodes = settled.nodes.map((n) => n.metadata.name);
  const done = await waitFor(
    '20 pods on settled nodes, none of the nodes of 200 pods left',
    async () => {
      const st = await s.settled(20);
      return st !== undefined && !st.nodes.some((n) => beforeNodes.includes(n.metadata.name))
        ? st
        : undefined;
    },
    240_000,
    { guard: s.pendingGuard(PendingLimitMs, scaledAt), describe: () => s.describe() },
  );
  const movedAfter = await nothingMoves(s, names(done.claims));
  return {
    before,
    beforeNodes,
    kept,
    prediction,
    after: fleetOf(done.claims),
    finalPods: done.pods,
    finalClaims: done.claims,
    disrupted: await s.events('Disrupted', beforeNodes),
    movedAfter,
  };
}

// ---- blocks -------------------------------------------------------------------------------

interface BlockResult {
  /** The underused node (the one the 2 pods are on). */
  readonly node: string;
  /** The pool's NodeClaims while blocked, and their fleet. */
  readonly blockedClaims: readonly string[];
  readonly blockedFleet: Fleet;
  /** The event that says why, as listed. */
  readonly event: EventObject;
  /** Seconds the node was watched staying after the event. */
  readonly heldSeconds: number;
  /** How the underused node's NodeClaim or Node was marked, tainted or deleted while blocked. */
  readonly touched: readonly string[];
  /** After the block was lifted: the fleet, and whether the blocked claim went. */
  readonly liftedFleet: Fleet;
  readonly liftedClaims: readonly string[];
}

/**
 * 10 pods (one c-4x, or a c-2x and a c-1x when they came in two provisioning batches) scaled to
 * 2 kept on the fullest node: a node consolidation would replace with a c-1x (consolidateAfter
 * 0s); another node, if any, is empty (emptiness removes it unless the budget blocks that too).
 * `block` is in place before the pods exist; `messages` is the event the controller must record
 * on the underused Node (`reason`); `lift` removes the block, after which the pool's nodes of
 * that time must go for a cheaper one. "Stays" is watched for 25 s after the event: over two
 * disruption passes (10 s poll) and past a validation (15 s).
 */
async function runBlock(
  s: Scenario,
  o: {
    block?: () => Promise<void>;
    reason: string;
    /** The event's message, or every message allowed (the pods on the node at that time). */
    messages: (pods: readonly PodObject[]) => readonly string[];
    lift: (pods: readonly PodObject[]) => Promise<void>;
  },
): Promise<BlockResult> {
  await o.block?.();
  await s.deploy(10);
  const initial = await waitFor('10 pods bound', () => s.settled(10), 120_000, {
    describe: () => s.describe(),
  });
  const kept = await keepOnFullestNode(s, initial.pods, 2);
  await s.scale(2);
  const blocked = await waitFor('2 pods left', () => s.settled(2), 60_000, {
    describe: () => s.describe(),
  });
  const nodes = [kept.node];
  const messages = o.messages(blocked.pods);
  const event = await waitFor(
    `a ${o.reason} event ${messages.map((m) => `"${m}"`).join(' or ')} on ${nodes.join(', ')}`,
    async () => (await s.events(o.reason, nodes)).find((e) => messages.includes(e.message ?? '')),
    90_000,
    {
      describe: async () =>
        JSON.stringify(
          [
            ...(await s.events('DisruptionBlocked', nodes)),
            ...(await s.events('Unconsolidatable', nodes)),
          ].map((e) => `${e.reason}: ${e.message}`),
        ),
    },
  );
  const heldFrom = Date.now();
  // The kwok Node is named as its NodeClaim.
  const touched = await nothingMoves(s, [kept.node]);
  const heldSeconds = (Date.now() - heldFrom) / 1000;

  await o.lift(blocked.pods);
  const blockedClaims = names(blocked.claims);
  const lifted = await waitFor(
    `the blocked node claim(s) ${blockedClaims.join(', ')} to be replaced once the block is lifted`,
    async () => {
      const st = await s.settled(2);
      return st !== undefined && !st.claims.some((c) => blockedClaims.includes(c.metadata.name))
        ? st
        : undefined;
    },
    150_000,
    { guard: s.pendingGuard(PendingLimitMs), describe: () => s.describe() },
  );
  return {
    node: kept.node,
    blockedClaims,
    blockedFleet: fleetOf(blocked.claims),
    event,
    heldSeconds,
    touched,
    liftedFleet: fleetOf(lifted.claims),
    liftedClaims: names(lifted.claims),
  };
}

// ---- drift --------------------------------------------------------------------------------

interface DriftResult {
  readonly original: readonly ClaimObject[];
  readonly originalPods: readonly string[];
  readonly final: { readonly claims: readonly ClaimObject[]; readonly pods: readonly PodObject[] };
  readonly finalNodes: readonly { metadata: { name: string; labels?: Record<string, string> } }[];
  /** Most original NodeClaims disrupting at once, as the budget counts them (see runDrift). */
  readonly peakDisrupting: number;
  readonly disrupted: readonly EventObject[];
}

/** The template label the drift scenario adds. */
const DriftLabel = 'e2e.karpenter-ts.io/generation';

/** 6 pods on two c-1x nodes; a template label is added; budget `nodes: "1"`. */
async function runDrift(s: Scenario): Promise<DriftResult> {
  await s.deploy(6);
  const settled = await waitFor('6 pods bound', () => s.settled(6), 120_000, {
    describe: () => s.describe(),
  });
  const original = settled.claims;
  const originalNames = names(original);
  // Disrupting as the budget counts it (upstream's BuildDisruptionBudgetMapping): marked for a
  // command (DisruptionReason) or deleting, until its instance is terminating
  // (InstanceTerminating=True: drained and the cloud delete accepted), when the node no longer
  // counts at all, although its Node object may linger a few seconds for its finalizer.
  const has = (h: { last: ClaimObject }, type: string) =>
    (h.last.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
  s.claims.trackPeak(
    'disrupting',
    (h) =>
      originalNames.includes(h.last.metadata.name) &&
      (h.last.metadata.deletionTimestamp !== undefined || has(h, 'DisruptionReason')) &&
      !has(h, 'InstanceTerminating'),
  );
  await s.patchPool({ spec: { template: { metadata: { labels: { [DriftLabel]: 'v2' } } } } });
  const final = await waitFor(
    'the drifted node claims to be replaced by claims with the new label',
    async () => {
      const st = await s.settled(6);
      return st !== undefined &&
        !st.claims.some((c) => originalNames.includes(c.metadata.name)) &&
        st.claims.every((c) => c.metadata.labels?.[DriftLabel] === 'v2')
        ? st
        : undefined;
    },
    180_000,
    { guard: s.pendingGuard(PendingLimitMs), describe: () => s.describe() },
  );
  return {
    original,
    originalPods: names(settled.pods),
    final,
    finalNodes: final.nodes,
    peakDisrupting: s.claims.peak('disrupting'),
    disrupted: await s.events('Disrupted', originalNames),
  };
}

// ---- expiration ---------------------------------------------------------------------------

interface ExpirationResult {
  readonly original: readonly ClaimObject[];
  readonly originalPods: readonly string[];
  readonly final: { readonly claims: readonly ClaimObject[]; readonly pods: readonly PodObject[] };
  readonly expiredEvents: readonly EventObject[];
}

/** 6 pods on two c-1x nodes of a pool with `expireAfter: 2m`. */
async function runExpiration(s: Scenario): Promise<ExpirationResult> {
  await s.deploy(6);
  const settled = await waitFor('6 pods bound', () => s.settled(6), 120_000, {
    describe: () => s.describe(),
  });
  const original = settled.claims;
  const originalNames = names(original);
  const final = await waitFor(
    'the expired node claims to be replaced',
    async () => {
      const st = await s.settled(6);
      return st !== undefined && !st.claims.some((c) => originalNames.includes(c.metadata.name))
        ? st
        : undefined;
    },
    // 2 min from the claims' creation, then the drain and the new claims.
    300_000,
    { guard: s.pendingGuard(PendingLimitMs), describe: () => s.describe() },
  );
  return {
    original,
    originalPods: names(settled.pods),
    final,
    expiredEvents: await s.events('Disrupted', originalNames, 'NodeClaim'),
  };
}

// ---- the suite ----------------------------------------------------------------------------

let consolidation: Promise<ConsolidationResult>;
let blockPdb: Promise<BlockResult>;
let blockDnd: Promise<BlockResult>;
let blockBudget: Promise<BlockResult>;
let drift: Promise<DriftResult>;
let expiration: Promise<ExpirationResult>;

const fast = { budgets: [{ nodes: '100%' }], consolidateAfter: '0s' };

beforeAll(async () => {
  const kubeconfig = inject('kubeconfig');
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  controller = await startController('disruption', [
    '--kubeconfig',
    kubeconfig,
    '--disable-leader-election',
  ]);
  const expire = new Scenario(api, 'expiration', {
    maxCores: 1,
    expireAfter: '2m',
    disruption: { budgets: [{ nodes: '100%' }], consolidateAfter: 'Never' },
  });
  const consolidate = new Scenario(api, 'consolidation', {
    maxCores: 16,
    disruption: { ...fast, consolidateAfter: '20s' },
  });
  const pdb = new Scenario(api, 'block-pdb', { maxCores: 16, disruption: fast });
  const dnd = new Scenario(api, 'block-dnd', {
    maxCores: 16,
    disruption: fast,
    podAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' },
  });
  const budget = new Scenario(api, 'block-budget', {
    maxCores: 16,
    disruption: { budgets: [{ nodes: '0' }], consolidateAfter: '0s' },
  });
  const drifting = new Scenario(api, 'drift', {
    maxCores: 1,
    disruption: {
      budgets: [{ nodes: '1' }],
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: 'Never',
    },
  });
  scenarios.push(expire, consolidate, pdb, dnd, budget, drifting);
  await Promise.all(scenarios.map((s) => s.create()));

  // Expiration first: its two minutes run while the others do their work.
  expiration = start(() => runExpiration(expire));
  blockPdb = start(() =>
    runBlock(pdb, {
      block: () =>
        api.request('POST', `/apis/policy/v1/namespaces/${pdb.name}/poddisruptionbudgets`, {
          body: {
            apiVersion: 'policy/v1',
            kind: 'PodDisruptionBudget',
            metadata: { name: pdb.name, namespace: pdb.name },
            spec: { maxUnavailable: 0, selector: { matchLabels: { app: pdb.name } } },
          },
        }),
      reason: 'DisruptionBlocked',
      messages: () => [`Cannot disrupt Node: pdb ${pdb.name}/${pdb.name} prevents pod evictions`],
      lift: () =>
        api.request(
          'DELETE',
          `/apis/policy/v1/namespaces/${pdb.name}/poddisruptionbudgets/${pdb.name}`,
        ),
    }),
  );
  blockDnd = start(() =>
    runBlock(dnd, {
      reason: 'DisruptionBlocked',
      // The controller names the first such pod of the node; either may be first.
      messages: (pods) =>
        pods.map(
          (p) =>
            `Cannot disrupt Node: pod ${dnd.name}/${p.metadata.name} has karpenter.sh/do-not-disrupt`,
        ),
      lift: async (pods) => {
        for (const p of pods) {
          await api.request('PATCH', `/api/v1/namespaces/${dnd.name}/pods/${p.metadata.name}`, {
            body: { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': null } } },
            contentType: 'application/merge-patch+json',
          });
        }
      },
    }),
  );
  blockBudget = start(() =>
    runBlock(budget, {
      reason: 'Unconsolidatable',
      messages: () => [`budget for Underutilized in nodepool ${budget.name} is 0 (nodes: 0)`],
      lift: () => budget.patchPool({ spec: { disruption: { budgets: [{ nodes: '100%' }] } } }),
    }),
  );
  drift = start(() => runDrift(drifting));
  // The 200 pods come once the small scenarios' pods exist: the kube-controller-manager creates
  // pods for all ReplicaSets at 20 requests/s, so 200 pods created alongside would spread a small
  // scenario's pods over several provisioning batches (and nodes).
  const small: [Scenario, number][] = [
    [expire, 6],
    [pdb, 10],
    [dnd, 10],
    [budget, 10],
    [drifting, 6],
  ];
  const smallCreated = Promise.all(
    small.map(([s, n]) =>
      waitFor(
        `the ${n} pods of ${s.name} to exist`,
        async () => (await s.listPods()).length >= n,
        60_000,
      ),
    ),
  );
  consolidation = start(async () => {
    await smallCreated;
    return runConsolidation(consolidate);
  });
}, 120_000);

afterAll(async () => {
  try {
    await Promise.allSettled(runs);
    await Promise.all(scenarios.map((s) => s.remove()));
  } finally {
    await controller?.stop();
  }
}, 400_000);

describe('disruption on a real control plane (sim provider)', () => {
  it(
    'a Deployment of 200 pods scaled to 20 loses its empty and underused nodes, as predicted in memory',
    async () => {
      const r = await consolidation;
      console.info(
        `consolidation: before ${r.before.instanceTypes.join(', ')} ($${r.before.costPerHour.toFixed(4)}/h); ` +
          `after ${r.after.instanceTypes.join(', ')} ($${r.after.costPerHour.toFixed(4)}/h); ` +
          `in memory: before ${r.prediction.before.instanceTypes.join(', ')}, after ${r.prediction.after.instanceTypes.join(', ')} ` +
          `($${r.prediction.after.costPerHour.toFixed(4)}/h, ${r.prediction.settleSeconds} s of clock); ` +
          `events: ${r.disrupted.map((e) => `${e.involvedObject.name}: ${e.message}`).join('; ')}`,
      );
      // Fewer nodes, lower cost.
      expect(r.after.instanceTypes.length).toBeLessThan(r.before.instanceTypes.length);
      expect(r.after.costPerHour).toBeLessThan(r.before.costPerHour);
      // The same end as in memory. It must be exactly the same: 20 pods of 195m need 3.9 cores
      // after one node's 100m kube-reserved, which a c-4x holds exactly; two nodes reserve 200m
      // (a c-2x holds 9 pods, a c-1x 4), so every fleet of 4 cores holds at most 18, and with
      // prices linear in cores and memory the c-4x alone is the cheapest fleet. The paths differ
      // (the ReplicaSet stand-in deletes the newest pods, kube-scheduler spreads where the
      // stand-in packs, 200 pods arrive in one batch in memory and over ~10 s here), so the fleets
      // before the scale-down may differ; the end may not.
      expect(r.after.instanceTypes).toEqual(r.prediction.after.instanceTypes);
      expect(r.after.costPerHour).toBeCloseTo(r.prediction.after.costPerHour, 10);
      // And it stayed so.
      expect(r.movedAfter).toEqual([]);
      // The disruption controller removed every node of the 200 pods: emptiness the emptied
      // ones, consolidation the underused one. Which command took which node is a race (each
      // node's consolidateAfter counts from its own last pod event: an underused node
      // consolidatable before the empty ones may move its pods onto one of them, which is then
      // the underused one), so only this much is certain: each was disrupted, at least one as
      // Empty, and the 20 pods reached their c-4x through a replacement (Underutilized).
      for (const node of r.beforeNodes)
        expect(r.disrupted.some((e) => e.involvedObject.name === node)).toBe(true);
      const messages = r.disrupted.map((e) => e.message ?? '');
      expect(messages.some((m) => /^Disrupting Node: delete \d+ node\(s\) \(Empty\)/.test(m))).toBe(
        true,
      );
      expect(
        messages.some((m) => /^Disrupting Node: replace \d+ node\(s\) \(Underutilized\)/.test(m)),
      ).toBe(true);
      // The 20 pods of the underused node left through the Eviction API (the API server marks
      // them DisruptionTarget/EvictionByEvictionAPI), the ReplicaSet controller recreated them and
      // the kube-scheduler bound the new pods (settled: all bound to this pool's nodes, none
      // unbound for more than a minute on the way).
      const s = scenarios.find((x) => x.name === 'consolidation') as Scenario;
      expect(notEvictedByApi(s, r.kept.pods)).toEqual([]);
      expect(r.finalPods).toHaveLength(20);
      expect(r.finalPods.filter((p) => r.kept.pods.includes(p.metadata.name))).toEqual([]);
      const finalNodes = new Set(r.finalClaims.map((c) => c.status?.nodeName));
      expect(r.finalPods.every((p) => finalNodes.has(p.spec?.nodeName))).toBe(true);
    },
    ScenarioTimeoutMs,
  );

  const checkBlock = async (result: Promise<BlockResult>) => {
    const r = await result;
    console.info(
      `blocked by "${r.event.message}": ${r.blockedFleet.instanceTypes.join(', ')} held ${r.heldSeconds} s; lifted: ${r.liftedFleet.instanceTypes.join(', ')}`,
    );
    // The underused node stayed while blocked: never marked, tainted or deleted.
    expect(r.touched).toEqual([]);
    expect(r.heldSeconds).toBeGreaterThanOrEqual(HoldMs / 1000);
    // And it was underused: once the block was lifted it went, for a cheaper node.
    expect(r.liftedClaims.some((c) => r.blockedClaims.includes(c))).toBe(false);
    expect(r.liftedFleet.costPerHour).toBeLessThan(r.blockedFleet.costPerHour);
  };

  it(
    'a PDB with maxUnavailable 0 over the pods of an underused node blocks it, with a DisruptionBlocked event',
    async () => {
      const r = await blockPdb;
      expect(r.event.reason).toBe('DisruptionBlocked');
      await checkBlock(blockPdb);
    },
    ScenarioTimeoutMs,
  );

  it(
    'a pod annotated karpenter.sh/do-not-disrupt blocks its node, with a DisruptionBlocked event',
    async () => {
      const r = await blockDnd;
      expect(r.event.message).toMatch(
        /^Cannot disrupt Node: pod block-dnd\/block-dnd-[a-z0-9-]+ has karpenter\.sh\/do-not-disrupt$/,
      );
      await checkBlock(blockDnd);
    },
    ScenarioTimeoutMs,
  );

  it(
    'a NodePool budget of nodes "0" blocks consolidation, with an Unconsolidatable event',
    async () => {
      const r = await blockBudget;
      expect(r.event.reason).toBe('Unconsolidatable');
      await checkBlock(blockBudget);
    },
    ScenarioTimeoutMs,
  );

  it(
    'a NodePool template change drifts its node claims and replaces them one at a time (budget 1)',
    async () => {
      const r = await drift;
      const s = scenarios.find((x) => x.name === 'drift') as Scenario;
      console.info(
        `drift: ${names(r.original).join(', ')} -> ${names(r.final.claims).join(', ')}, at most ${r.peakDisrupting} disrupting at once`,
      );
      // Each original claim was marked Drifted (NodePoolDrifted) and replaced (a Disrupted event).
      for (const c of r.original) {
        expect(s.claims.objects.get(c.metadata.name)?.conditions).toContain(
          'Drifted/True/NodePoolDrifted',
        );
        expect(
          r.disrupted.some(
            (e) => e.involvedObject.name === c.metadata.name && /\(Drifted\)/.test(e.message ?? ''),
          ),
        ).toBe(true);
      }
      // Within the budget: never more than one original node disrupting at a time.
      expect(r.peakDisrupting).toBe(1);
      // New claims carry the label, so do their Nodes; every pod is bound to one of them.
      expect(r.final.claims.every((c) => c.metadata.labels?.[DriftLabel] === 'v2')).toBe(true);
      expect(r.finalNodes.every((n) => n.metadata.labels?.[DriftLabel] === 'v2')).toBe(true);
      const nodes = new Set(r.finalNodes.map((n) => n.metadata.name));
      expect(r.final.pods.every((p) => nodes.has(p.spec?.nodeName ?? ''))).toBe(true);
      // The original pods left through the Eviction API and were replaced.
      expect(notEvictedByApi(s, r.originalPods)).toEqual([]);
    },
    ScenarioTimeoutMs,
  );

  it(
    'expireAfter: 2m replaces the nodes of its NodePool after two minutes',
    async () => {
      const r = await expiration;
      const s = scenarios.find((x) => x.name === 'expiration') as Scenario;
      for (const c of r.original) {
        const h = s.claims.objects.get(c.metadata.name);
        const created = Date.parse(c.metadata.creationTimestamp ?? '');
        const deleted = Date.parse(h?.last.metadata.deletionTimestamp ?? '');
        // Deleted no earlier than its expireAfter (server timestamps, whole seconds).
        expect(deleted - created).toBeGreaterThanOrEqual(120_000);
        expect(
          r.expiredEvents.some(
            (e) =>
              e.involvedObject.name === c.metadata.name &&
              e.message === 'Disrupting NodeClaim: Expired',
          ),
        ).toBe(true);
      }
      // The pods were evicted from the expired nodes and rescheduled onto new ones.
      expect(notEvictedByApi(s, r.originalPods)).toEqual([]);
      const originals = new Set(names(r.original));
      expect(r.final.claims.length).toBeGreaterThan(0);
      expect(r.final.claims.some((c) => originals.has(c.metadata.name))).toBe(false);
      const nodes = new Set(r.final.claims.map((c) => c.status?.nodeName));
      expect(r.final.pods.every((p) => nodes.has(p.spec?.nodeName))).toBe(true);
    },
    ScenarioTimeoutMs,
  );
});
