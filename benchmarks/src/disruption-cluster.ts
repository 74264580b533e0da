/**
 * The cluster the disruption benchmark runs on: the reference diverse workload provisioned by
 * one solve of the provisioner's own Scheduler on the benchmark's fake catalog, with every
 * node launched, registered and initialized by the real node claim lifecycle (sim cloud, sim
 * kubelet), every pod bound where that solve placed it, and every NodeClaim `Consolidatable`
 * (set by the real NodeClaim disruption controller); then a seeded random half of the pods is
 * deleted.
 *
 * Applying a command (see {@link applyCommand}) uses the real orchestration queue (taint,
 * `DisruptionReason`, replacement NodeClaims, mark for deletion, delete the candidates' NodeClaims
 * once the replacements are initialized), the real lifecycle for the replacements, and the real
 * node termination and NodeClaim finalization. The eviction, the workload controller's
 * re-creation of the pod and the kube-scheduler's binding are collapsed into one step: each pod
 * of a candidate is deleted and re-created (same name, same spec) bound where the command's
 * simulation placed it.
 */
import type { NodeClaim, NodePool, Pod } from '@karpenter-ts/api';
import {
  fakeInstanceTypes,
  fakePrice,
  SimCloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import {
  Cluster,
  DisruptionController,
  ManualClock,
  MemoryKubeClient,
  NodeClaimDisruption,
  NodeClaimLifecycle,
  NodePoolHash,
  NodePoolReadiness,
  NodePoolValidation,
  NodeTermination,
  Provisioner,
  SimKubelet,
  isTrue,
  podKey,
  startClusterInformers,
  describeFailures,
  PdbLimits,
  simulateScheduling,
  type Command,
  type NodeClassObject,
  type SimulationContext,
  type SimulationResult,
} from '@karpenter-ts/controllers';
import { podRequests, type SchedulingResults } from '@karpenter-ts/scheduling';
import { SeededRandom } from './rng.js';
import { benchmarkNodePool, largeBenchmarkNodePool, SEED } from './scheduling-workload.js';

/** The NodeClass kind of the benchmark NodePool (`nodePool()` of the scheduling test builders). */
const BenchNodeClass = { group: 'karpenter.test.sh', kind: 'TestNodeClass' } as const;

/** Pod counts above which the NodePool has no limits (see {@link disruptionNodePool}). */
const LIMITED_POOL_MAX_PODS = 20_000;

/**
 * The benchmark NodePool with `consolidationPolicy: WhenEmptyOrUnderutilized`,
 * `consolidateAfter: 0s` and one budget `nodes: 100%`. Up to 20,000 pods: the reference pool
 * (limits cpu 10,000,000, memory 10,000,000Gi); above, the same pool without limits, since the
 * scheduler counts every new node claim as its largest option (800Gi) and the memory limit runs
 * out after about 10,500 node claims (the scheduling benchmark's `--large` pool).
 */
export function disruptionNodePool(pods: number): NodePool {
  const pool = pods > LIMITED_POOL_MAX_PODS ? largeBenchmarkNodePool() : benchmarkNodePool();
  pool.spec.disruption = {
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfter: '0s',
    budgets: [{ nodes: '100%' }],
  };
  return pool;
}

function nodeClass(): NodeClassObject {
  return {
    apiVersion: `${BenchNodeClass.group}/v1`,
    kind: BenchNodeClass.kind,
    metadata: { name: 'default' },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'Ready',
        },
      ],
    },
  };
}

/** A running in-memory cluster and the real controllers the benchmark drives. */
export interface BenchCluster {
  readonly clock: ManualClock;
  readonly client: MemoryKubeClient;
  readonly cloud: SimCloudProvider;
  readonly cluster: Cluster;
  readonly provisioner: Provisioner;
  readonly lifecycle: NodeClaimLifecycle;
  readonly kubelet: SimKubelet;
  readonly termination: NodeTermination;
  readonly claimDisruption: NodeClaimDisruption;
  readonly disruption: DisruptionController;
  readonly catalog: readonly InstanceType[];
  readonly stop: () => void;
}

/** Starts an empty cluster with the benchmark NodePool (made Ready by its own controllers). */
export async function emptyCluster(solver: 'wasm' | 'ts', pool: NodePool): Promise<BenchCluster> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  // The same 400 types as `benchmarkInstanceTypes()`, built as cloudprovider InstanceTypes.
  const catalog: readonly InstanceType[] = fakeInstanceTypes(400);
  const cloud = new SimCloudProvider({
    instanceTypes: catalog,
    clock,
    nodeClasses: [BenchNodeClass],
  });
  await client.create('NodeClass', nodeClass());
  await client.create('NodePool', pool);
  const name = pool.metadata.name ?? '';
  await new NodePoolValidation({ client, clock }).reconcile(name);
  await new NodePoolReadiness({ client, cloudProvider: cloud, clock }).reconcile(name);
  await new NodePoolHash({ client }).reconcile(name);
  const ready = await client.get('NodePool', { name });
  if (ready === undefined || !isTrue(ready, 'Ready')) {
    throw new Error(`nodepool ${name} did not become Ready: ${JSON.stringify(ready?.status)}`);
  }
  const cluster = new Cluster(clock);
  const stop = await startClusterInformers(client, cluster);
  const provisioner = new Provisioner({ client, cluster, cloudProvider: cloud, clock, solver });
  const ctx = { client, cloudProvider: cloud, clock };
  return {
    clock,
    client,
    cloud,
    cluster,
    provisioner,
    lifecycle: new NodeClaimLifecycle(ctx),
    kubelet: new SimKubelet({ client, clock }),
    termination: new NodeTermination(ctx),
    claimDisruption: new NodeClaimDisruption(ctx),
    disruption: new DisruptionController({ client, cluster, provisioner, clock }),
    catalog,
    stop,
  };
}

/** The pod as the kube-scheduler leaves a pod it cannot place: `PodScheduled=False/Unschedulable`. */
function unschedulable(pod: Pod): Pod {
  const copy = structuredClone(pod);
  copy.status = {
    ...(copy.status ?? {}),
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
  };
  return copy;
}

/** A copy of the pod fit for `create` (no server-set fields), bound to `nodeName` and running. */
function boundCopy(pod: Pod, nodeName: string): Pod {
  const copy = structuredClone(pod);
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, ...meta } = copy.metadata ?? {};
  copy.metadata = meta;
  copy.spec = { ...(copy.spec ?? { containers: [] }), nodeName };
  copy.status = { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }] };
  return copy;
}

/**
 * Launches, registers and initializes the named NodeClaims with the real lifecycle and the sim
 * kubelet (launch; the kubelet registers the Node; registration and initialization), then sets
 * their disruption conditions with the real NodeClaim disruption controller. Throws when one
 * does not end Initialized.
 */
async function bringUp(c: BenchCluster, names: readonly string[]): Promise<void> {
  for (const name of names) await c.lifecycle.reconcile(name);
  await c.kubelet.reconcile();
  for (const name of names) await c.lifecycle.reconcile(name);
  for (const name of names) {
    const nc = await c.client.get('NodeClaim', { name });
    if (nc === undefined || !isTrue(nc, 'Initialized')) {
      throw new Error(
        `nodeclaim ${name} is not initialized: ${JSON.stringify(nc?.status?.conditions)}`,
      );
    }
    await c.claimDisruption.reconcile(name);
  }
}

/** Binds each new node claim's pods to the Node its created NodeClaim registered as. */
async function bindToCreated(
  c: BenchCluster,
  results: Pick<SchedulingResults, 'newNodeClaims'>,
  created: readonly NodeClaim[],
): Promise<void> {
  if (created.length !== results.newNodeClaims.length) {
    throw new Error(
      `${results.newNodeClaims.length} node claims scheduled, ${created.length} created`,
    );
  }
  for (let i = 0; i < created.length; i++) {
    const nc = await c.client.get('NodeClaim', { name: created[i]?.metadata.name ?? '' });
    const nodeName = nc?.status?.nodeName;
    if (nodeName === undefined)
      throw new Error(`nodeclaim ${created[i]?.metadata.name} has no node`);
    for (const pod of results.newNodeClaims[i]?.pods ?? [])
      await c.client.bind(keyOf(pod), nodeName);
  }
}

function keyOf(pod: Pod): { name: string; namespace: string } {
  return { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? 'default' };
}

/** What provisioning did. */
export interface Provisioned {
  /** NodeClaims created by the one solve. */
  readonly nodes: number;
  /** Seconds of the whole provisioning (solve, creates, lifecycle, binds). */
  readonly seconds: number;
}

/**
 * Provisions `pods` on the cluster: creates them unschedulable, runs one provisioning pass (one
 * Scheduler solve, NodeClaims created with the pool's limits rechecked), brings every NodeClaim
 * up and binds the pods as the solve placed them. Throws when a pod stays unscheduled.
 */
export async function provision(c: BenchCluster, pods: readonly Pod[]): Promise<Provisioned> {
  const t0 = performance.now();
  for (const pod of pods) await c.client.create('Pod', unschedulable(pod));
  const { results, created, notCreated } = await c.provisioner.provision();
  if (results.podErrors.size > 0 || notCreated.length > 0) {
    const [first] = results.podErrors.values();
    throw new Error(
      `provisioning left ${results.podErrors.size} pods unscheduled (${first ?? ''}) and ${notCreated.length} claims not created (${notCreated[0]?.reason ?? ''})`,
    );
  }
  await bringUp(
    c,
    created.map((nc) => nc.metadata.name ?? ''),
  );
  await bindToCreated(c, results, created);
  const bound = (await c.client.list('Pod')).filter((p) => p.spec?.nodeName).length;
  if (bound !== pods.length) throw new Error(`${bound} of ${pods.length} pods bound`);
  return { nodes: created.length, seconds: (performance.now() - t0) / 1000 };
}

/** Deletes a seeded random half (floor) of the pods; returns the pods kept. */
export async function deleteHalf(c: BenchCluster, pods: readonly Pod[]): Promise<Pod[]> {
  const rng = new SeededRandom(SEED + 1);
  const order = [...pods];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j] as Pod, order[i] as Pod];
  }
  const gone = order.slice(0, Math.floor(order.length / 2));
  for (const pod of gone) await c.client.delete('Pod', keyOf(pod));
  const goneKeys = new Set(gone.map(podKey));
  return pods.filter((p) => !goneKeys.has(podKey(p)));
}

/** The running managed nodes: count, USD/hour (each node's own offering) and how full they are. */
export interface ClusterCost {
  nodes: number;
  usdPerHour: number;
  /** Σ pod cpu requests / Σ allocatable cpu of the nodes (and the same for memory). */
  cpuUtilization: number;
  memoryUtilization: number;
}

/** See {@link ClusterCost}. */
export function clusterCost(c: BenchCluster): ClusterCost {
  const byName = new Map(c.catalog.map((it) => [it.name, it]));
  let nodes = 0;
  let usd = 0;
  const used = { cpu: 0, memory: 0 };
  const allocatable = { cpu: 0, memory: 0 };
  for (const n of c.cluster.nodes()) {
    if (!n.managed() || n.deleting()) continue;
    const l = n.labels();
    const it = byName.get(l['node.kubernetes.io/instance-type'] ?? '');
    const o = it?.offerings.find(
      (x) =>
        x.zone === l['topology.kubernetes.io/zone'] &&
        x.capacityType === l['karpenter.sh/capacity-type'],
    );
    if (o === undefined) throw new Error(`node ${n.name()} has no priced offering`);
    nodes++;
    usd += o.price;
    const r = n.podRequests();
    const a = n.allocatable();
    used.cpu += r.cpu ?? 0;
    used.memory += r.memory ?? 0;
    allocatable.cpu += a.cpu ?? 0;
    allocatable.memory += a.memory ?? 0;
  }
  return {
    nodes,
    usdPerHour: usd,
    cpuUtilization: allocatable.cpu === 0 ? 0 : used.cpu / allocatable.cpu,
    memoryUtilization: allocatable.memory === 0 ? 0 : used.memory / allocatable.memory,
  };
}

/**
 * A lower bound on the USD/hour of any set of fake-catalog nodes holding the pods: every fake
 * type costs 0.1 USD/h per core plus 0.1 per GB and has 2 GiB per core, so n cores cost at least
 * n · fakePrice(1 core, 2 GiB) and must cover the cpu requests and half the memory requests in
 * GiB (kube-reserved, node counts and topology ignored).
 */
export function resourceLowerBound(pods: readonly Pod[]): number {
  let cpu = 0;
  let memory = 0;
  for (const p of pods) {
    const r = podRequests(p);
    cpu += r.cpu ?? 0;
    memory += r.memory ?? 0;
  }
  const cores = Math.max(cpu / 1000, memory / (2 * 1024 ** 3));
  return cores * fakePrice(1000, 2 * 1024 ** 3);
}

/** What applying one command did. */
export interface Applied {
  readonly removed: number;
  readonly launched: number;
  /** Pods moved off the candidates. */
  readonly moved: number;
  /**
   * Node claims the provisioner's own scheduling would launch for the pods of the candidates
   * once they are marked for deletion and the replacements are up (a diagnostic; nothing is
   * launched): upstream's provisioner schedules those pods too, and when its packing differs from
   * the command's simulation it launches more capacity. 0 when the two agree.
   */
  readonly provisionerWouldLaunch: number;
}

/** The simulation behind a command, run again on the cluster as it is now (the plan's inputs). */
async function simulate(
  c: BenchCluster,
  candidates: Command['candidates'],
): Promise<SimulationResult> {
  const sim: SimulationContext = {
    provisioner: c.provisioner,
    inputs: await c.provisioner.schedulingInputs(),
    nodes: c.cluster.nodes(),
    pendingPods: await c.provisioner.pendingPods(false),
    pdbs: new PdbLimits(await c.client.list('PodDisruptionBudget')),
    nowMs: c.clock.now(),
  };
  return simulateScheduling(sim, candidates);
}

/**
 * Carries a command out (see the module comment): its simulation is run again on the same state
 * (it is deterministic: same pods on the same nodes and the same new node claims as the plan's);
 * the queue starts the command (taints, replacement NodeClaims, candidates marked for deletion);
 * the replacements come up; the queue deletes the candidates' NodeClaims; each pod of a candidate
 * is re-created bound where the simulation placed it (an existing node, or the replacement
 * launched for the simulation's new node claim); termination and finalization remove the
 * Nodes, instances and NodeClaims. Throws when the simulation no longer matches the command or a
 * node would be overcommitted.
 */
export async function applyCommand(c: BenchCluster, command: Command): Promise<Applied> {
  const { results, failures } = await simulate(c, command.candidates);
  const same =
    failures.size === 0 &&
    results.newNodeClaims.length === command.replacements.length &&
    results.newNodeClaims.every(
      (claim, i) =>
        claim.pods.map(podKey).sort().join() ===
        (command.replacements[i]?.pods ?? []).map(podKey).sort().join(),
    );
  if (!same)
    throw new Error(`the simulation of the command changed: ${describeFailures(failures)}`);
  const queued = await c.disruption.queue.start(command);
  if (queued.replacements.length !== command.replacements.length) {
    throw new Error(
      `${queued.replacements.length} of ${command.replacements.length} replacements created`,
    );
  }
  await bringUp(c, queued.replacements);
  // What the provisioner sees now: the candidates marked for deletion, their pods to place.
  const provisionerView = await simulate(c, []);
  await c.disruption.queue.reconcile();
  if (c.disruption.queue.commands().length > 0) throw new Error('the command did not complete');

  const candidates = new Set(queued.command.candidates.map((x) => x.name));
  const targets: [Pod, string][] = [];
  for (const placement of results.existingNodes) {
    for (const pod of placement.pods) targets.push([pod, placement.name]);
  }
  for (const [i, name] of queued.replacements.entries()) {
    const nc = await c.client.get('NodeClaim', { name });
    for (const pod of results.newNodeClaims[i]?.pods ?? [])
      targets.push([pod, nc?.status?.nodeName ?? '']);
  }
  let moved = 0;
  for (const [pod, nodeName] of targets) {
    if (!candidates.has(pod.spec?.nodeName ?? '')) {
      throw new Error(
        `pod ${podKey(pod)} on ${pod.spec?.nodeName ?? 'no node'} is not a candidate's`,
      );
    }
    await c.client.delete('Pod', keyOf(pod));
    await c.client.create('Pod', boundCopy(pod, nodeName));
    moved++;
  }
  const expected = queued.command.candidates.reduce((n, x) => n + x.reschedulablePods.length, 0);
  if (moved !== expected) throw new Error(`${moved} pods moved, ${expected} expected`);
  checkFits(c, new Set(targets.map(([, n]) => n)));

  const claims = queued.command.candidates.map((x) => x.nodeClaim.metadata.name ?? '');
  for (let round = 0; ; round++) {
    let left = 0;
    for (const name of claims) {
      if ((await c.client.get('NodeClaim', { name })) === undefined) continue;
      left++;
      await c.lifecycle.reconcile(name);
    }
    for (const x of queued.command.candidates) {
      if ((await c.client.get('Node', { name: x.name })) === undefined) continue;
      left++;
      await c.termination.reconcile(x.name);
    }
    if (left === 0) break;
    if (round > 20) throw new Error(`candidates not gone after ${round} rounds`);
    c.clock.advance(5);
  }
  return {
    removed: queued.command.candidates.length,
    launched: queued.replacements.length,
    moved,
    provisionerWouldLaunch: provisionerView.results.newNodeClaims.length,
  };
}

/** Throws when a pod request sum exceeds a node's allocatable (on the named nodes). */
function checkFits(c: BenchCluster, names: ReadonlySet<string>): void {
  for (const n of c.cluster.nodes()) {
    if (!names.has(n.name())) continue;
    const used = n.podRequests();
    const allocatable = n.allocatable();
    for (const [k, v] of Object.entries(used)) {
      if (v > (allocatable[k] ?? 0)) {
        throw new Error(`node ${n.name()} is overcommitted: ${k} ${v} > ${allocatable[k] ?? 0}`);
      }
    }
  }
}
