/**
 * `explain` as data: the pod, and for each NodePool (in the scheduler's order) the verdict of
 * {@link explainNodePool}, plus where the pod landed in the simulation of the whole input.
 */
import type { Pod } from '@karpenter-ts/api';
import {
  orderByWeight,
  podRequests,
  resourceListFromQuantities,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import type { Cloud } from '../clouds/cloud.js';
import { location, type ManifestDocument } from '../manifests/document.js';
import { inventory } from '../manifests/inventory.js';
import {
  podName,
  rejectInvalidInput,
  simulate,
  type SimulateOptions,
  type Simulation,
} from '../simulation/simulate.js';
import { expandWorkloads } from '../workloads/expand.js';
import { CliError } from '../errors.js';
import { counted } from '../output/plural.js';
import { findDaemonSetPod, findPod } from './find-pod.js';
import { explainNodePool, type NodePoolVerdict } from './why.js';

/** Everything `explain` reports about one pod. */
export interface Explanation {
  readonly pod: Pod;
  /** `namespace/name`. */
  readonly podName: string;
  /** `file:document` of the workload the pod came from. */
  readonly source: string | undefined;
  /** The pod's requests as the scheduler counts them (canonical units). */
  readonly requests: ResourceList;
  readonly cloud: Cloud;
  readonly notes: readonly string[];
  /** One per NodePool, weight descending then name descending. */
  readonly verdicts: readonly NodePoolVerdict[];
  /** Where the pod landed in the simulation of the whole input, in words. */
  readonly inSimulation: string;
  /**
   * True for a DaemonSet's pod: Karpenter does not schedule it but counts its requests as
   * daemonset overhead on every node claim it fits (`verdicts` is then empty).
   */
  readonly daemonSet: boolean;
}

/**
 * The capacity of each node the input's NodeClaims of `pool` run (what counts against its
 * limits in the cluster `simulate` loads).
 */
function poolUsage(simulation: Simulation, pool: string): ResourceList[] {
  return simulation.snapshot.snapshot.nodeClaims
    .map((c) => c.object)
    .filter(
      (c) =>
        c.metadata.labels?.['karpenter.sh/nodepool'] === pool &&
        c.metadata.deletionTimestamp === undefined,
    )
    .map((c) => resourceListFromQuantities(c.status?.capacity ?? {}));
}

/**
 * Explains the pod `query` names (see findPod) on `cloud`. Raises CliError when no pod matches
 * and ManifestError for invalid input (as simulate does).
 */
export async function explainPod(
  documents: readonly ManifestDocument[],
  cloud: Cloud,
  query: string,
  options: SimulateOptions,
): Promise<Explanation> {
  const now = options.now ?? new Date();
  const inv = inventory(documents);
  rejectInvalidInput(inv, cloud);
  const workloads = expandWorkloads(inv.workloads, { scale: options.scale ?? 1, now });
  let pod: Pod;
  try {
    pod = findPod(workloads, query);
  } catch (error) {
    const daemon = error instanceof CliError ? findDaemonSetPod(workloads, query) : undefined;
    if (!daemon) throw error;
    const source = workloads.origin.get(daemon);
    return {
      pod: daemon,
      podName: podName(daemon),
      source: source ? location(source) : undefined,
      requests: podRequests(daemon),
      cloud,
      notes: [],
      verdicts: [],
      inSimulation:
        'not scheduled by Karpenter: it is a DaemonSet pod; the DaemonSet controller runs one on every node it fits, and Karpenter adds its requests as daemonset overhead to every node claim it fits',
      daemonSet: true,
    };
  }
  // The full simulation also validates the input and says where the pod lands among the others.
  const simulation = await simulate(documents, cloud, { ...options, now });
  // The NodePools the simulation used (the same plan: a snapshot without NodePools gets none).
  const plan = simulation.snapshot.plan;
  const verdicts = orderByWeight(plan.pools.map((p) => p.nodePool)).map((nodePool) => {
    // The catalog the controllers saw (NodeOverlays applied with the gate on).
    const types = simulation.instanceTypes(nodePool.metadata.name ?? '');
    return explainNodePool(
      pod,
      nodePool,
      types,
      cloud,
      workloads.daemonSetPods,
      options.solver ?? 'wasm',
      poolUsage(simulation, nodePool.metadata.name ?? ''),
    );
  });

  const name = podName(pod);
  const index = simulation.nodeClaims.findIndex((c) => c.pods.some((p) => podName(p) === name));
  const claim = simulation.nodeClaims[index];
  const pending = simulation.podErrors.find((e) => podName(e.pod) === name);
  const inSimulation = claim
    ? `node claim ${index + 1} of ${simulation.nodeClaims.length} (NodePool "${claim.nodePool}", ${claim.launch.instanceType.name}, ${counted(claim.pods.length, 'pod')})`
    : pending
      ? `pending: ${pending.reason}`
      : 'not part of the simulation';
  const source = workloads.origin.get(pod);
  return {
    pod,
    podName: name,
    source: source ? location(source) : undefined,
    requests: podRequests(pod),
    cloud,
    notes: plan.notes,
    verdicts,
    inSimulation,
    daemonSet: false,
  };
}
