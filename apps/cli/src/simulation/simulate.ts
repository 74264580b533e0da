/**
 * One provisioning simulation on the controllers' own provisioner: the input is read as a cluster
 * snapshot (readSnapshot: workloads expanded into pending pods, minus the pods of theirs already
 * in the input; Nodes as existing capacity), loaded into the in-memory cluster (MemoryKubeClient,
 * a manual clock, the sim cloud over the chosen cloud's catalog launching as that provider ranks
 * offerings) and run by packages/controllers' ControllerLoop (provisioner batches, NodeClaim
 * lifecycle, kubelet and kube-scheduler stand-ins; no disruption) until provisioning settles.
 * The node claims, their launches and the pods left pending are read back from the cluster.
 *
 * NodePool limits bind on launched capacity as in a cluster: a batch counts each new node claim
 * at the largest capacity it could launch as (upstream does the same), and the next batch sees
 * the launched nodes with their real capacity and schedules the pods left pending; each batch
 * that created node claims is a provisioning round.
 */
import type { NodePool, NodeSelectorRequirementWithMinValues, Pod } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import {
  typeCompatible,
  type MinValuesPolicy,
  type PreferencePolicy,
  type Requirements,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import type { Cloud } from '../clouds/cloud.js';
import { startCluster } from '../cluster/cluster-loop.js';
import { MaxPendingPods, provisionUntilSettled } from '../cluster/provision-until-settled.js';
import { CliError, ManifestError } from '../errors.js';
import type { ManifestDocument } from '../manifests/document.js';
import { inventory, type Inventory } from '../manifests/inventory.js';
import {
  NodeOverlayGateOffReason,
  readSnapshot,
  type SnapshotRead,
} from '../snapshot/read-snapshot.js';
import { nodeOverlayNotes } from '../cluster/overlay-notes.js';
import { validateDocuments } from '../validation/validate-documents.js';
import { clusterResults } from './cluster-results.js';
import type { Launch } from './launch.js';
import type { PlannedNodePool } from './node-pools.js';
import { unofferedRequirements } from '../clouds/unoffered-requirements.js';
import { nodePoolRequirements } from '../explain/why.js';
import { withBlockedPoolReasons, type BlockedNodePool } from './left-out-reasons.js';

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /** Replica multiplier (see scaleCount). Default 1. */
  scale?: number;
  /** Solver of the scheduler's hot path. Default `wasm`. */
  solver?: 'wasm' | 'ts';
  /** Creation time of the simulated pods, and the cluster clock's start. Default now. */
  now?: Date;
  /** The provisioner's `--preference-policy`; default Respect. */
  preferencePolicy?: PreferencePolicy;
  /** The provisioner's `--min-values-policy`; default Strict. */
  minValuesPolicy?: MinValuesPolicy;
  /** Feature gate `NodeOverlay` (`--node-overlay`); default off, as upstream. */
  nodeOverlay?: boolean;
  /** The work bound of provisionUntilSettled (pending pods summed over ticks); default 6 million. */
  maxPendingPodTicks?: number;
  /** Most pending pods a run starts with (see MaxPendingPods); default 100,000. */
  maxPendingPods?: number;
}

/** A node claim and what the cloud launches for it. */
export interface SimulatedNodeClaim {
  /** The NodeClaim's name (`<nodepool>-<suffix>`). */
  readonly name: string;
  readonly nodePool: string;
  /** The NodeClaim's labels (NodePool template labels, `karpenter.sh/nodepool`, the launch's). */
  readonly labels: Readonly<Record<string, string>>;
  /** The NodeClaim's annotations (NodePool hash, `karpenter.sh/nodeclaim-min-values-relaxed`, ...). */
  readonly annotations: Readonly<Record<string, string>>;
  /** `spec.requirements` as the provisioner wrote them (minValues kept). */
  readonly specRequirements: readonly NodeSelectorRequirementWithMinValues[];
  /** The daemonset overhead the provisioner counted in the claim's requests, canonical units. */
  readonly daemonSetOverhead: ResourceList;
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
  /** Name of its Node. */
  readonly nodeName: string;
}

/** A node that already exists (a `Node` in the input) and the pods the simulation placed on it. */
export interface SimulatedExistingNode {
  readonly name: string;
  /** Its `karpenter.sh/nodepool` label; absent for capacity Karpenter does not manage. */
  readonly nodePool?: string;
  /** Pods the simulation placed there (not those the input had bound to it). */
  readonly pods: readonly Pod[];
  /** Pods the input had bound to it (DaemonSet pods not counted), still there. */
  readonly podsBefore: number;
}

/** Everything a simulation decided. */
export interface Simulation {
  readonly cloud: Cloud;
  readonly pools: readonly PlannedNodePool[];
  readonly notes: readonly string[];
  /** The input as the cluster snapshot it was loaded as. */
  readonly snapshot: SnapshotRead;
  readonly nodeClaims: readonly SimulatedNodeClaim[];
  readonly existingNodes: readonly SimulatedExistingNode[];
  readonly podErrors: readonly { pod: Pod; reason: string }[];
  /** Pending pods the simulation started with. */
  readonly pendingPods: number;
  /** Provisioning rounds: the provisioner's batches that created node claims, at least 1. */
  readonly rounds: number;
  /**
   * The instance types a NodePool (by name) offered the controllers: the cloud's catalog, with
   * the NodeOverlays applied when the `NodeOverlay` gate is on.
   */
  readonly instanceTypes: (poolName: string) => readonly InstanceType[];
}

/**
 * Runs the simulation of `documents` on `cloud` (see the module comment). Raises a ManifestError
 * for invalid NodePools, NodeClasses or workloads, or objects defined twice (see
 * {@link rejectInvalidInput}); a CliError when there is nothing to schedule, a Node cannot be
 * read, the input breaks a cluster's rules (a pod bound to a Node it does not hold), or it holds
 * more than `maxPendingPods` pending pods (refused before the cluster is loaded; workloads that
 * certainly make more, before their pods are built: a UsageError naming `--scale` when it
 * crossed the cap, else a ManifestError on the workload's count field, see expandWorkloads);
 * and provisionUntilSettled's CliError past `maxPendingPodTicks`.
 */
export async function simulate(
  documents: readonly ManifestDocument[],
  cloud: Cloud,
  options: SimulateOptions = {},
): Promise<Simulation> {
  const now = options.now ?? new Date();
  const inv = inventory(documents);
  const maxPendingPods = options.maxPendingPods ?? MaxPendingPods;
  const read = readSnapshot(documents, cloud, {
    now,
    maxPendingPods,
    ...(options.scale === undefined ? {} : { scale: options.scale }),
    ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
  });
  const plan = read.plan;
  const notes = [...read.notes];
  if (inv.podDisruptionBudgets.length > 0) {
    notes.push(
      `${inv.podDisruptionBudgets.length} PodDisruptionBudget(s) read: they limit disruption, not provisioning, so they do not change this simulation`,
    );
  }
  if (inv.nodeOverlays.length > 0 && options.nodeOverlay !== true)
    notes.push(
      `${inv.nodeOverlays.length} NodeOverlay(s) not applied: ${NodeOverlayGateOffReason.replace(/ it$/, ' them')}`,
    );
  if (read.gatedNote) notes.push(read.gatedNote);
  const pendingPods = read.snapshot.pods.filter((p) => !p.object.spec?.nodeName).length;
  if (pendingPods > maxPendingPods) {
    const n = (x: number) => x.toLocaleString('en-US');
    throw new CliError(
      `the input holds ${n(pendingPods)} pending pods, more than the ${n(maxPendingPods)} a simulation runs (the provisioning loop re-solves every pending pod on each tick); use a smaller --scale, or simulate part of the input`,
    );
  }
  // A cluster whose pods all run has nothing to provision, which is an answer; an input without
  // any pod is a mistake.
  if (pendingPods === 0 && read.snapshot.pods.length > 0)
    notes.push('every pod of the input is bound to a Node already: nothing to provision');
  if (read.snapshot.pods.length === 0) {
    const held =
      read.gated > 0 ? `; ${read.gated} gated pod(s) left out: they have spec.schedulingGates` : '';
    throw new CliError(
      `nothing to schedule: no pending pods in the input (read ${documents.length} objects; workloads are Deployments, StatefulSets, ReplicaSets, ReplicationControllers, Jobs, CronJobs and Pods${held})`,
    );
  }
  const cluster = await startCluster(read, cloud, {
    now,
    solver: options.solver ?? 'wasm',
    ...(options.preferencePolicy ? { preferencePolicy: options.preferencePolicy } : {}),
    ...(options.minValuesPolicy ? { minValuesPolicy: options.minValuesPolicy } : {}),
    ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
    disruption: false,
  });
  notes.push(...nodeOverlayNotes(cluster));
  let results;
  try {
    await provisionUntilSettled(cluster, options.maxPendingPodTicks);
    results = await clusterResults(cluster, read);
  } finally {
    cluster.loop.stop();
  }
  const { nodeClaims, existingNodes, rounds } = results;
  let podErrors = results.podErrors;
  // A NodePool no instance type matches launches nothing; the scheduler drops it silently (or,
  // when it drops them all, names them to every pod), and blames e.g. topology spread instead.
  const launchesNothing: BlockedNodePool[] = [];
  for (const p of plan.pools) {
    const name = p.nodePool.metadata.name ?? '';
    const why = whyNothingLaunches(p.nodePool, cluster.cloud.instanceTypes(name), cloud);
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
    snapshot: read,
    nodeClaims,
    existingNodes,
    podErrors,
    pendingPods,
    rounds,
    instanceTypes: (poolName) => cluster.cloud.instanceTypes(poolName),
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
 * Raises a ManifestError with the first problem (and the count of others) of the input's
 * NodePools, NodeClaims, NodeClasses, workloads, Nodes, PodDisruptionBudgets and NodeOverlays (see
 * validateDocuments), or of an object the input
 * defines twice: what the apiserver would reject, or keep once, cannot be simulated as written.
 */
export function rejectInvalidInput(inv: Inventory, cloud: Cloud): void {
  const docs = [
    ...inv.nodePools,
    ...inv.nodeClaims,
    ...inv.nodeClasses,
    ...inv.workloads,
    ...inv.nodes,
    ...inv.podDisruptionBudgets,
    // Checked with the gate off too: the API server refuses an invalid one whatever the gate.
    ...inv.nodeOverlays,
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

/** `namespace/name` of a pod. */
export function podName(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}
