/**
 * Builders for the disruption specifications: a ControllerLoop over the sim cloud with
 * ReplicaSet-owned workloads, run to a settled state.
 */
import type {
  Budget,
  ConsolidationPolicy,
  Node,
  NodeClaim,
  NodePool,
  Pod,
  StatusCondition,
  Taint,
} from '@karpenter-ts/api';
import { Annotations, Finalizers, Labels, NodeClaimConditions, Taints } from '@karpenter-ts/api';
import {
  createInstanceType,
  createOffering,
  fakeInstanceTypes,
  SimCloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import {
  formatResourceList,
  Requirements,
  resourceListFromQuantities,
} from '@karpenter-ts/scheduling';
import { pod, TEST_ZONES, type NodePoolOptions } from '@karpenter-ts/scheduling/testing';
import {
  buildCandidates,
  ControllerLoop,
  DisruptionController,
  getCondition,
  isTrue,
  ManualClock,
  MemoryKubeClient,
  PdbLimits,
  ValidationDelaySeconds,
  type CandidateContext,
  type Command,
  type ControllerLoopOptions,
  type DisruptionClass,
  type DisruptionPlan,
  type KubeEvent,
  type MethodName,
} from '../../src/index.js';
import { nodeClass, readyNodePool, TestNodeClass, testEnv, type TestEnv } from '../helpers.js';

/** A running in-memory cluster. */
export interface DisruptionEnv {
  readonly clock: ManualClock;
  readonly client: MemoryKubeClient;
  readonly cloud: SimCloudProvider;
  readonly loop: ControllerLoop;
}

/** Starts a loop with one NodePool (default: the test pool) and the fake catalog. */
export async function disruptionEnv(
  o: {
    pools?: NodePool[];
    instanceTypes?: InstanceType[];
    loop?: Partial<Omit<ControllerLoopOptions, 'client' | 'cloudProvider' | 'clock'>>;
  } = {},
): Promise<DisruptionEnv> {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  const cloud = new SimCloudProvider({
    instanceTypes: o.instanceTypes ?? fakeInstanceTypes(20),
    clock,
    nodeClasses: [TestNodeClass],
  });
  await client.create('NodeClass', nodeClass());
  for (const pool of o.pools ?? [readyNodePool()]) await client.create('NodePool', pool);
  const loop = new ControllerLoop({
    client,
    cloudProvider: cloud,
    clock,
    provisioner: { solver: 'ts' },
    ...(o.loop ?? {}),
  });
  await loop.start();
  return { clock, client, cloud, loop };
}

/** Adds a ReplicaSet-owned workload of `replicas` pods with these requests and labels. */
export function addWorkload(
  env: DisruptionEnv,
  name: string,
  replicas: number,
  requests: Record<string, string>,
  o: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): void {
  env.loop.replicaSets.add({
    name,
    replicas,
    template: {
      metadata: {
        labels: { app: name, ...(o.labels ?? {}) },
        ...(o.annotations ? { annotations: o.annotations } : {}),
      },
      spec: { containers: [{ name: 'c', image: 'app', resources: { requests } }] },
    },
  });
}

/** Runs until every pod is bound and every NodeClaim initialized, or `maxSeconds`. */
export async function settle(env: DisruptionEnv, maxSeconds = 300): Promise<boolean> {
  return env.loop.runUntil(async () => {
    const pods = await env.client.list('Pod');
    const claims = await env.client.list('NodeClaim');
    return (
      pods.length > 0 &&
      pods.every((p) => p.spec?.nodeName) &&
      claims.every((c) => isTrue(c, 'Initialized') && c.metadata.deletionTimestamp === undefined) &&
      env.loop.disruption.queue.commands().length === 0 &&
      env.loop.disruption.pendingCommand === undefined
    );
  }, maxSeconds);
}

/** USD/hour of the cloud's running instances. */
export async function costPerHour(env: DisruptionEnv): Promise<number> {
  let total = 0;
  for (const nc of await env.client.list('NodeClaim')) {
    const type = nc.metadata.labels?.['node.kubernetes.io/instance-type'];
    const zone = nc.metadata.labels?.['topology.kubernetes.io/zone'];
    const ct = nc.metadata.labels?.['karpenter.sh/capacity-type'];
    const it = (await env.cloud.getInstanceTypes(readyNodePool())).find((t) => t.name === type);
    total += it?.offerings.find((o) => o.zone === zone && o.capacityType === ct)?.price ?? 0;
  }
  return total;
}

// ---- unit fixtures: a hand-built cluster and the disruption controller over it -------------

/** An offering of {@link catalogType}. */
export interface CatalogOffering {
  zone: string;
  capacityType: 'on-demand' | 'spot';
  price: number;
  available?: boolean;
}

/**
 * An instance type with `cpu` cores, 2×cpu GiB, 110 pods, amd64/linux, no overhead. Default
 * offerings: on-demand at `price` and spot at 0.7×`price` in test-zone-1..3.
 */
export function catalogType(
  name: string,
  cpu: number,
  price: number,
  o: { offerings?: CatalogOffering[]; available?: boolean } = {},
): InstanceType {
  const offerings =
    o.offerings ??
    TEST_ZONES.flatMap((zone) => [
      { zone, capacityType: 'on-demand' as const, price, available: o.available ?? true },
      {
        zone,
        capacityType: 'spot' as const,
        price: Math.round(price * 0.7 * 1e6) / 1e6,
        available: o.available ?? true,
      },
    ]);
  return createInstanceType({
    name,
    requirements: Requirements.fromNodeSelectorRequirements([
      { key: Labels.InstanceType, operator: 'In', values: [name] },
      { key: Labels.Arch, operator: 'In', values: ['amd64'] },
      { key: Labels.OS, operator: 'In', values: ['linux'] },
      {
        key: Labels.TopologyZone,
        operator: 'In',
        values: [...new Set(offerings.map((x) => x.zone))],
      },
      {
        key: Labels.CapacityType,
        operator: 'In',
        values: [...new Set(offerings.map((x) => x.capacityType))],
      },
    ]),
    offerings: offerings.map((x) => createOffering(x)),
    capacity: resourceListFromQuantities({ cpu: String(cpu), memory: `${2 * cpu}Gi`, pods: '110' }),
  });
}

/**
 * The catalog of the unit specifications: four sizes that double in cpu, memory and price
 * ({@link catalogType}: on-demand at the price, spot at 0.7×): small 2 cpu/4Gi 0.2, medium
 * 4/8Gi 0.4, large 8/16Gi 0.8, xlarge 16/32Gi 1.6 USD/h. Types in `unavailable` have no
 * available offering (an insufficient-capacity cache).
 */
export function sizedCatalog(o: { unavailable?: readonly string[] } = {}): InstanceType[] {
  const sizes: [string, number, number][] = [
    ['small', 2, 0.2],
    ['medium', 4, 0.4],
    ['large', 8, 0.8],
    ['xlarge', 16, 1.6],
  ];
  return sizes.map(([name, cpu, price]) =>
    catalogType(name, cpu, price, { available: !(o.unavailable ?? []).includes(name) }),
  );
}

/** Options of {@link disruptionPool}: the scheduling builder's plus `spec.disruption` and template fields. */
export interface DisruptionPoolOptions extends NodePoolOptions {
  /** Default `[{nodes: '100%'}]` (not the CRD's 10%), so budgets only limit where a test says so. */
  budgets?: Budget[];
  consolidateAfter?: string;
  consolidationPolicy?: ConsolidationPolicy;
  expireAfter?: string;
  terminationGracePeriod?: string;
}

/** A Ready NodePool (see {@link DisruptionPoolOptions}). */
export function disruptionPool(o: DisruptionPoolOptions = {}): NodePool {
  const pool = readyNodePool(o);
  if (o.expireAfter !== undefined) pool.spec.template.spec.expireAfter = o.expireAfter;
  pool.spec.disruption = {
    budgets: o.budgets ?? [{ nodes: '100%' }],
    ...(o.consolidateAfter !== undefined ? { consolidateAfter: o.consolidateAfter } : {}),
    ...(o.consolidationPolicy !== undefined ? { consolidationPolicy: o.consolidationPolicy } : {}),
  };
  return pool;
}

/** {@link TestEnv} plus the disruption controller and the catalog. */
export interface UnitEnv extends TestEnv {
  readonly disruption: DisruptionController;
  readonly catalog: readonly InstanceType[];
}

/**
 * The in-memory client with cluster state, the sim cloud over `instanceTypes` (default
 * {@link sizedCatalog}), the given NodePools (default one {@link disruptionPool} `default`) and a
 * DisruptionController. No other controller runs: tests build nodes with {@link addNode}.
 */
export async function unitEnv(
  o: {
    pools?: NodePool[];
    instanceTypes?: InstanceType[];
    spotToSpotConsolidation?: boolean;
  } = {},
): Promise<UnitEnv> {
  const catalog = o.instanceTypes ?? sizedCatalog();
  const env = await testEnv({ instanceTypes: catalog });
  for (const pool of o.pools ?? [disruptionPool()]) await env.client.create('NodePool', pool);
  const disruption = new DisruptionController({
    client: env.client,
    cluster: env.cluster,
    provisioner: env.provisioner,
    clock: env.clock,
    spotToSpotConsolidation: o.spotToSpotConsolidation ?? false,
  });
  return { ...env, disruption, catalog };
}

/** Options of {@link addNode}. */
export interface NodeOptions {
  /** Node and NodeClaim name. */
  name: string;
  /** Default `default`. */
  pool?: string;
  /** Default `large`. */
  instanceType?: string;
  /** Default `test-zone-1`. */
  zone?: string;
  /** Default `on-demand`. */
  capacityType?: 'on-demand' | 'spot';
  /** `karpenter.sh/initialized=true` and `Initialized=True`; default true. */
  initialized?: boolean;
  /** Node `Ready` condition; default true. */
  ready?: boolean;
  /** `Consolidatable=True`; default true. */
  consolidatable?: boolean;
  /** `Drifted=True` with this reason (`true`: `NodePoolDrifted`), set at the current time. */
  drifted?: boolean | string;
  nodeAnnotations?: Record<string, string>;
  nodeClaimAnnotations?: Record<string, string>;
  taints?: Taint[];
  /** NodeClaim `status.conditions` to add. */
  conditions?: StatusCondition[];
  expireAfter?: string;
  terminationGracePeriod?: string;
}

/**
 * Creates a launched, registered NodeClaim and its Node (same name, provider ID
 * `sim:///<zone>/<name>`) as the lifecycle controllers would leave them, with the termination
 * finalizer on both and the capacity of the catalog's instance type. Returns both as stored.
 */
export async function addNode(
  env: UnitEnv,
  o: NodeOptions,
): Promise<{ node: Node; nodeClaim: NodeClaim }> {
  const pool = o.pool ?? 'default';
  const typeName = o.instanceType ?? 'large';
  const it = env.catalog.find((t) => t.name === typeName);
  if (it === undefined) throw new Error(`no instance type ${typeName} in the catalog`);
  const zone = o.zone ?? 'test-zone-1';
  const capacityType = o.capacityType ?? 'on-demand';
  const initialized = o.initialized ?? true;
  const now = new Date(env.clock.now()).toISOString();
  const providerID = `sim:///${zone}/${o.name}`;
  const labels: Record<string, string> = {
    [Labels.NodePool]: pool,
    [Labels.InstanceType]: typeName,
    [Labels.TopologyZone]: zone,
    [Labels.CapacityType]: capacityType,
    [Labels.Arch]: 'amd64',
    [Labels.OS]: 'linux',
  };
  const capacity = formatResourceList(it.capacity);
  const allocatable = formatResourceList(it.allocatable());
  const condition = (type: string, status: 'True' | 'False' | 'Unknown', reason = type) => ({
    type,
    status,
    reason,
    message: '',
    lastTransitionTime: now,
  });
  const poolObject = await env.client.get('NodePool', { name: pool });
  const drifted = o.drifted === true ? 'NodePoolDrifted' : o.drifted;
  const nodeClaim = await env.client.create('NodeClaim', {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: o.name,
      labels: { ...labels },
      annotations: {
        ...(poolObject?.metadata.annotations?.[Annotations.NodePoolHash] !== undefined
          ? {
              [Annotations.NodePoolHash]: poolObject.metadata.annotations[Annotations.NodePoolHash],
              [Annotations.NodePoolHashVersion]:
                poolObject.metadata.annotations[Annotations.NodePoolHashVersion] ?? '',
            }
          : {}),
        ...(o.nodeClaimAnnotations ?? {}),
      },
      finalizers: [Finalizers.Termination],
    },
    spec: {
      requirements: poolObject?.spec.template.spec.requirements ?? [],
      nodeClassRef: { group: TestNodeClass.group, kind: TestNodeClass.kind, name: 'default' },
      ...(o.expireAfter !== undefined ? { expireAfter: o.expireAfter } : {}),
      ...(o.terminationGracePeriod !== undefined
        ? { terminationGracePeriod: o.terminationGracePeriod }
        : {}),
    },
    status: {
      providerID,
      nodeName: o.name,
      capacity,
      allocatable,
      conditions: [
        condition('Launched', 'True'),
        condition('Registered', 'True'),
        condition('Initialized', initialized ? 'True' : 'Unknown'),
        ...((o.consolidatable ?? true) && initialized ? [condition('Consolidatable', 'True')] : []),
        ...(drifted !== undefined && drifted !== false
          ? [condition('Drifted', 'True', drifted)]
          : []),
        ...(o.conditions ?? []),
      ],
    },
  });
  const node = await env.client.create('Node', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: o.name,
      labels: {
        ...labels,
        [Labels.Hostname]: o.name,
        [Labels.Registered]: 'true',
        ...(initialized ? { [Labels.Initialized]: 'true' } : {}),
      },
      annotations: { ...(o.nodeAnnotations ?? {}) },
      finalizers: [Finalizers.Termination],
    },
    spec: { providerID, ...(o.taints ? { taints: o.taints } : {}) },
    status: {
      capacity,
      allocatable,
      conditions: [{ type: 'Ready', status: (o.ready ?? true) ? 'True' : 'False' }],
    },
  });
  return { node, nodeClaim };
}

/** Options of {@link bindPods}. */
export interface BoundPodOptions {
  /** Default `{cpu: '1'}`. */
  requests?: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  nodeSelector?: Record<string, string>;
  /** Pod `Ready` condition; default true. */
  ready?: boolean;
  /** `status.startTime`; default now. */
  startTime?: Date;
  /** Owner kind; default `ReplicaSet`. */
  ownerKind?: string;
}

/** Creates `count` running pods bound to `nodeName`; returns them as stored. */
export async function bindPods(
  env: TestEnv,
  nodeName: string,
  count: number,
  o: BoundPodOptions = {},
): Promise<Pod[]> {
  const out: Pod[] = [];
  for (let i = 0; i < count; i++) {
    const p = pod({
      requests: o.requests ?? { cpu: '1' },
      ownerKind: o.ownerKind ?? 'ReplicaSet',
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
    });
    if (o.annotations) p.metadata = { ...p.metadata, annotations: o.annotations };
    p.spec = { ...(p.spec ?? { containers: [] }), nodeName };
    p.status = {
      phase: 'Running',
      startTime: o.startTime ?? new Date(env.clock.now()),
      conditions: [{ type: 'Ready', status: (o.ready ?? true) ? 'True' : 'False' }],
    };
    out.push(await env.client.create('Pod', p));
  }
  return out;
}

/** The candidate context a disruption pass builds, read from the env now. */
export async function candidateContext(env: UnitEnv): Promise<CandidateContext> {
  const inputs = await env.provisioner.schedulingInputs();
  return {
    nowMs: env.clock.now(),
    nodePools: inputs.pools as ReadonlyMap<string, NodePool>,
    instanceTypes: inputs.instanceTypes,
    pdbs: new PdbLimits(await env.client.list('PodDisruptionBudget')),
    queued: env.disruption.queue.queuedNodes(),
  };
}

/** Candidate names and, for the others, `name: reason`, for a method of `disruptionClass`. */
export async function candidates(
  env: UnitEnv,
  disruptionClass: DisruptionClass = 'graceful',
): Promise<{ names: string[]; not: Record<string, string> }> {
  const result = buildCandidates(env.cluster.nodes(), await candidateContext(env), disruptionClass);
  return {
    names: result.candidates.map((c) => c.name),
    not: Object.fromEntries(result.notCandidates.map((n) => [n.name, n.reason])),
  };
}

/** The names of a command's candidates, sorted. */
export function names(command: Command | undefined): string[] {
  return (command?.candidates ?? []).map((c) => c.name).sort();
}

/** The instance-type names of a command's only replacement, cheapest first. */
export function replacementTypes(command: Command | undefined): string[] {
  return (command?.replacements[0]?.instanceTypeOptions ?? []).map((it) => it.name);
}

/** The values a requirement allows (`[]` when it is not `In`). */
export function allowedValues(command: Command | undefined, key: string): string[] {
  const r = command?.replacements[0]?.requirements.get(key);
  return r === undefined || r.operator() !== 'In' ? [] : [...r.values].sort();
}

/** The reason a plan's method gave for skipping `name`, or undefined. */
export function skipReason(
  plan: DisruptionPlan,
  method: MethodName,
  name: string,
): string | undefined {
  return plan.skipped.find((s) => s.method === method && s.name === name)?.reason;
}

/** Events recorded for `name` with `reason`. */
export function eventsFor(env: TestEnv, name: string, reason: string): KubeEvent[] {
  return env.client.events.filter((e) => e.involved.name === name && e.reason === reason);
}

/** Whether the Node carries `karpenter.sh/disrupted:NoSchedule`. */
export async function isTainted(env: TestEnv, name: string): Promise<boolean> {
  const node = await env.client.get('Node', { name });
  return (node?.spec?.taints ?? []).some((t) => t.key === Taints.Disrupted.key);
}

/** Whether the NodeClaim carries a `DisruptionReason` condition. */
export async function hasDisruptionReason(env: TestEnv, name: string): Promise<boolean> {
  const nc = await env.client.get('NodeClaim', { name });
  return nc !== undefined && getCondition(nc, NodeClaimConditions.DisruptionReason) !== undefined;
}

/** Runs the disruption controller's pass, then (when it computed a command) 15 s later its validation pass. */
export async function reconcileAndValidate(env: UnitEnv): Promise<void> {
  await env.disruption.reconcile();
  if (env.disruption.pendingCommand === undefined) return;
  env.clock.advance(ValidationDelaySeconds);
  await env.disruption.reconcile();
}
