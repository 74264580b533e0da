/**
 * One provisioning simulation: the input's pending pods scheduled by @karpenter-ts/scheduling's
 * Scheduler onto the chosen cloud's real catalog, each resulting node claim resolved to the
 * offering the cloud would launch, in successive provisioning rounds.
 *
 * Why rounds: within one batch the scheduler counts each new node claim against its NodePool's
 * limits at the largest capacity it could launch as (upstream does the same), so a limited
 * NodePool stops opening claims long before its launched nodes reach the limit. In a cluster the
 * launched nodes then count with their real capacity, and the next batch schedules the pods left
 * pending. We do the same: launch each node claim, add it as an existing node (allocatable and
 * capacity of the launched instance type, its pods bound), and solve the still-pending pods
 * again, until every pod is placed or a round places none.
 */
import type { Node, NodePool, Pod } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import {
  addResources,
  podRequests,
  resourceListFromQuantities,
  Scheduler,
  typeCompatible,
  type ExistingNodeInput,
  type Requirements,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import type { Cloud } from '../clouds/cloud.js';
import { CliError, ManifestError } from '../errors.js';
import type { ManifestDocument } from '../manifests/document.js';
import { inventory, type Inventory } from '../manifests/inventory.js';
import { expandWorkloads, type ExpandedWorkloads } from '../workloads/expand.js';
import { apiServerDecoded } from '../validation/api-fields.js';
import { validateDocuments } from '../validation/validate-documents.js';
import type { Launch } from './launch.js';
import { planNodePools, type PlannedNodePool } from './node-pools.js';
import { unofferedRequirements } from '../clouds/unoffered-requirements.js';
import { nodePoolRequirements } from '../explain/why.js';
import { withBlockedPoolReasons, type BlockedNodePool } from './left-out-reasons.js';

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /** Replica multiplier (see scaleCount). Default 1. */
  scale?: number;
  /** Solver of the scheduler's hot path. Default `wasm`. */
  solver?: 'wasm' | 'ts';
  /** Creation time of the simulated pods. Default now. */
  now?: Date;
}

/** A node claim and what the cloud launches for it. */
export interface SimulatedNodeClaim {
  readonly nodePool: string;
  readonly launch: Launch;
  /** Every instance type the claim could have launched as, cheapest first. */
  readonly instanceTypeOptions: readonly InstanceType[];
  /** Pods on the node: those of its node claim, plus any later rounds placed on the launched node. */
  readonly pods: readonly Pod[];
  /** Pod requests plus daemonset overhead, canonical units. */
  readonly requests: ResourceList;
  /** The node claim's requirements (NodePool template narrowed by its pods). */
  readonly requirements: Requirements;
  /** The provisioning round (from 1) that launched it. */
  readonly round: number;
  /** Name of the simulated node, as later rounds see it. */
  readonly nodeName: string;
}

/** Pods placed on a node that already exists (a `Node` in the input). */
export interface SimulatedExistingNode {
  readonly name: string;
  readonly pods: readonly Pod[];
}

/** Everything a simulation decided. */
export interface Simulation {
  readonly cloud: Cloud;
  readonly pools: readonly PlannedNodePool[];
  readonly notes: readonly string[];
  readonly workloads: ExpandedWorkloads;
  readonly nodeClaims: readonly SimulatedNodeClaim[];
  readonly existingNodes: readonly SimulatedExistingNode[];
  readonly podErrors: readonly { pod: Pod; reason: string }[];
  /** Pending pods the simulation started with. */
  readonly pendingPods: number;
  /** Provisioning rounds run (scheduler solves), at least 1. */
  readonly rounds: number;
}

interface MutableClaim {
  nodePool: string;
  launch: Launch;
  instanceTypeOptions: readonly InstanceType[];
  pods: Pod[];
  requests: ResourceList;
  requirements: Requirements;
  round: number;
  nodeName: string;
}

/**
 * Runs the simulation of `documents` on `cloud`. Raises a ManifestError for invalid NodePools,
 * NodeClasses or workloads, or objects defined twice (see {@link rejectInvalidInput}); a CliError
 * when there is nothing to schedule or a node cannot be read.
 */
export function simulate(
  documents: readonly ManifestDocument[],
  cloud: Cloud,
  options: SimulateOptions = {},
): Simulation {
  const inv = inventory(documents);
  rejectInvalidInput(inv, cloud);
  const plan = planNodePools(inv.nodePools, inv.nodeClasses, cloud);
  const workloads = expandWorkloads(inv.workloads, {
    ...(options.scale === undefined ? {} : { scale: options.scale }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const notes = [...plan.notes];
  if (inv.podDisruptionBudgets.length > 0) {
    notes.push(
      `${inv.podDisruptionBudgets.length} PodDisruptionBudget(s) read: they limit disruption, not provisioning, so they do not change this simulation`,
    );
  }
  if (inv.nodeOverlays.length > 0)
    notes.push(
      `${inv.nodeOverlays.length} NodeOverlay(s) ignored: the simulation does not apply overlays`,
    );
  const gated = gatedNote(workloads);
  if (gated) notes.push(gated);
  if (workloads.pending.length === 0) {
    const held =
      workloads.gated.length > 0
        ? `; ${workloads.gated.length} gated pod(s) left out: they have spec.schedulingGates`
        : '';
    throw new CliError(
      `nothing to schedule: no pending pods in the input (read ${documents.length} objects; workloads are Deployments, StatefulSets, ReplicaSets, ReplicationControllers, Jobs, CronJobs and Pods${held})`,
    );
  }

  const instanceTypes = new Map<string, readonly InstanceType[]>();
  for (const p of plan.pools)
    instanceTypes.set(
      p.nodePool.metadata.name ?? '',
      cloud.instanceTypes(p.defaultNodeClass ? undefined : p.nodeClass),
    );

  const nodes: ExistingNodeInput[] = existingNodes(inv, workloads.boundPods);
  const inputPlacements = new Map<string, Pod[]>();
  const usedNames = new Set(nodes.map((n) => n.name));
  const nodeClaims: MutableClaim[] = [];
  const launchedByName = new Map<string, MutableClaim>();
  let pending: readonly Pod[] = workloads.pending;
  let podErrors: { pod: Pod; reason: string }[] = [];
  let rounds = 0;
  for (;;) {
    rounds++;
    const scheduler = new Scheduler<InstanceType>({
      nodePools: plan.pools.map((p) => p.nodePool),
      instanceTypes,
      existingNodes: nodes,
      daemonSetPods: workloads.daemonSetPods,
      solver: options.solver ?? 'wasm',
      wellKnownLabels: cloud.wellKnownLabels,
    });
    const results = scheduler.solve(pending);
    let placed = 0;
    for (const placement of results.existingNodes) {
      placed += placement.pods.length;
      const index = nodes.findIndex((n) => n.name === placement.name);
      const node = nodes[index];
      if (node)
        nodes[index] = {
          ...node,
          pods: [...(node.pods ?? []), ...placement.pods.map(bound(node.name))],
        };
      const claim = launchedByName.get(placement.name);
      if (claim) {
        claim.pods.push(...placement.pods);
        for (const pod of placement.pods)
          claim.requests = addResources(claim.requests, podRequests(pod));
      } else {
        const list = inputPlacements.get(placement.name) ?? [];
        list.push(...placement.pods);
        inputPlacements.set(placement.name, list);
      }
    }
    podErrors = [...results.podErrors].map(([pod, reason]) => ({ pod, reason }));
    for (const claim of results.newNodeClaims) {
      const launch = cloud.chooseLaunch(claim.instanceTypeOptions, claim.requirements);
      if (!launch) {
        for (const pod of claim.pods)
          podErrors.push({
            pod,
            reason: `no available offering for node claim of NodePool "${claim.nodePoolName}"`,
          });
        continue;
      }
      placed += claim.pods.length;
      const nodeName = uniqueName(`${claim.nodePoolName}-${nodeClaims.length + 1}`, usedNames);
      const simulated: MutableClaim = {
        nodePool: claim.nodePoolName,
        launch,
        instanceTypeOptions: claim.instanceTypeOptions,
        pods: [...claim.pods],
        requests: claim.requests,
        requirements: claim.requirements,
        round: rounds,
        nodeName,
      };
      nodeClaims.push(simulated);
      launchedByName.set(nodeName, simulated);
      const pool = plan.pools.find((p) => p.nodePool.metadata.name === claim.nodePoolName);
      nodes.push(launchedNode(nodeName, simulated, pool));
    }
    if (podErrors.length === 0 || placed === 0) break;
    pending = podErrors.map((e) => e.pod);
  }
  // A NodePool no instance type matches launches nothing; the scheduler drops it silently (or,
  // when it drops them all, names them to every pod), and blames e.g. topology spread instead.
  const launchesNothing: BlockedNodePool[] = [];
  for (const p of plan.pools) {
    const name = p.nodePool.metadata.name ?? '';
    const why = whyNothingLaunches(p.nodePool, instanceTypes.get(name) ?? [], cloud);
    if (why === undefined) continue;
    const reason = `NodePool "${name}" can launch nothing: ${why}`;
    launchesNothing.push({ nodePool: p.nodePool, reason });
    notes.push(reason);
  }
  // Pods left pending might have fit a pool that was left out or launches nothing: say which and why.
  podErrors = withBlockedPoolReasons(
    podErrors,
    [...plan.leftOut, ...launchesNothing],
    launchesNothing.length === plan.pools.length,
  );
  const launchedSpot = nodeClaims.some((c) => c.launch.offering.capacityType === 'spot');
  if (launchedSpot && cloud.name === 'azure')
    notes.push(
      'Azure spot prices equal on-demand prices in the shipped data (it has no spot price table; upstream, too, prices spot as on-demand until a live Retail Prices refresh), so spot node claims show on-demand prices',
    );
  else if (launchedSpot && cloud.spotPricing !== undefined)
    notes.push(`spot node claims show modelled prices: ${cloud.spotPricing}`);
  return {
    cloud,
    pools: plan.pools,
    notes,
    workloads,
    nodeClaims,
    existingNodes: [...inputPlacements].map(([name, pods]) => ({ name, pods })),
    podErrors,
    pendingPods: workloads.pending.length,
    rounds,
  };
}

/**
 * Why a NodePool with these instance types launches nothing, or undefined when some instance
 * type with an available offering meets its requirements (as the scheduler keeps a NodePool).
 * Names the requirements no instance type offers on their own (see unofferedRequirements) when
 * there are such.
 */
function whyNothingLaunches(
  nodePool: NodePool,
  types: readonly InstanceType[],
  cloud: Cloud,
): string | undefined {
  if (types.length === 0) return `its NodeClass offers no instance types in ${cloud.region}`;
  const requirements = nodePoolRequirements(nodePool);
  const unoffered = unofferedRequirements(requirements, types, cloud.region);
  if (unoffered) return unoffered;
  return types.some((it) => typeCompatible(it, requirements))
    ? undefined
    : 'no instance type with an available offering meets all of its requirements together';
}

/**
 * The node a launched node claim becomes: the labels of its requirements, launched instance
 * type and offering (zone, capacity type), its NodePool and hostname; the NodePool's taints
 * (startup taints are gone once it is initialized); allocatable and capacity of the launched
 * instance type (capacity counts against the NodePool's limits); its pods bound.
 */
function launchedNode(
  name: string,
  claim: MutableClaim,
  pool: PlannedNodePool | undefined,
): ExistingNodeInput {
  const { instanceType, offering } = claim.launch;
  return {
    name,
    labels: {
      ...claim.requirements.labels(),
      ...instanceType.requirements.labels(),
      ...offering.requirements.labels(),
      'karpenter.sh/nodepool': claim.nodePool,
      'kubernetes.io/hostname': name,
    },
    taints: pool?.nodePool.spec.template.spec.taints ?? [],
    allocatable: instanceType.allocatable(),
    capacity: instanceType.capacity,
    pods: claim.pods.map(bound(name)),
    nodePoolName: claim.nodePool,
  };
}

/** A copy of the pod bound to `nodeName`, as the kube-scheduler would bind it. */
function bound(nodeName: string): (pod: Pod) => Pod {
  return (pod) => ({ ...pod, spec: { ...pod.spec!, nodeName } });
}

function uniqueName(base: string, used: Set<string>): string {
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base}-${i}`;
  used.add(name);
  return name;
}

/**
 * Raises a ManifestError with the first problem (and the count of others) of the input's
 * NodePools, NodeClasses and workloads (see validateDocuments), or of an object the input
 * defines twice: what the apiserver would reject, or keep once, cannot be simulated as written.
 */
export function rejectInvalidInput(inv: Inventory, cloud: Cloud): void {
  const docs = [
    ...inv.nodePools,
    ...inv.nodeClasses,
    ...inv.workloads,
    ...inv.nodes,
    ...inv.podDisruptionBudgets,
  ];
  // A NodePool of a kind no cloud serves is not invalid to the apiserver: the plan leaves it out.
  const { problems } = validateDocuments(docs, [cloud], { nodeClassRefs: false });
  const first = problems[0];
  if (!first) return;
  const more =
    problems.length > 1 ? ` (and ${problems.length - 1} more; run karpenter-ts validate)` : '';
  throw new ManifestError(
    first.file,
    first.document,
    `${first.message}${more}`,
    first.field || undefined,
  );
}

function existingNodes(inv: Inventory, boundPods: readonly Pod[]): ExistingNodeInput[] {
  return inv.nodes.map((doc) => {
    const node = apiServerDecoded(doc.object) as unknown as Node;
    const name = node.metadata?.name;
    if (!name)
      throw new ManifestError(
        doc.file,
        doc.document,
        'required: a non-empty string',
        'metadata.name',
      );
    const quantities = node.status?.allocatable ?? node.status?.capacity;
    if (!quantities) {
      throw new ManifestError(
        doc.file,
        doc.document,
        'required to simulate an existing node',
        'status.allocatable',
      );
    }
    let allocatable: ResourceList;
    let capacity: ResourceList | undefined;
    try {
      allocatable = resourceListFromQuantities(quantities);
      capacity = node.status?.capacity
        ? resourceListFromQuantities(node.status.capacity)
        : undefined;
    } catch (cause) {
      throw new ManifestError(
        doc.file,
        doc.document,
        (cause as Error).message,
        'status',
        undefined,
        { cause },
      );
    }
    const labels: Record<string, string> = {
      'kubernetes.io/hostname': name,
      ...(node.metadata?.labels ?? {}),
    };
    return {
      name,
      labels,
      taints: node.spec?.taints ?? [],
      allocatable,
      ...(capacity ? { capacity } : {}),
      pods: boundPods.filter((p) => p.spec?.nodeName === name),
      ...(labels['karpenter.sh/nodepool'] ? { nodePoolName: labels['karpenter.sh/nodepool'] } : {}),
    };
  });
}

/** `namespace/name` of a pod. */
export function podName(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}

/**
 * The note for pods left out because they have `spec.schedulingGates`, naming up to three of
 * their workloads and gates; undefined when there are none. Upstream Karpenter provisions only
 * for pods the scheduler marked Unschedulable, which a gated pod never is.
 */
function gatedNote(workloads: ExpandedWorkloads): string | undefined {
  if (workloads.gated.length === 0) return undefined;
  const sources: string[] = [];
  const seen = new Set<ManifestDocument>();
  for (const pod of workloads.gated) {
    const doc = workloads.origin.get(pod);
    if (!doc || seen.has(doc)) continue;
    seen.add(doc);
    const summary = workloads.workloads.find((w) => w.source === doc);
    const name = summary ? `${summary.kind} ${summary.namespace}/${summary.name}` : doc.object.kind;
    const gates = (pod.spec?.schedulingGates ?? []).map((g) => g.name).join(', ');
    sources.push(`${name}: ${gates}`);
  }
  const shown =
    sources.slice(0, 3).join('; ') + (sources.length > 3 ? `; and ${sources.length - 3} more` : '');
  return `${workloads.gated.length} pod(s) left out: they have spec.schedulingGates (${shown}), and Karpenter provisions for a pod only once its gates are removed`;
}
