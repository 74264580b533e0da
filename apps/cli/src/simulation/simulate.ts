/**
 * One provisioning simulation: the input's pending pods scheduled by @karpenter-ts/scheduling's
 * Scheduler onto the chosen cloud's real catalog, each resulting node claim resolved to the
 * offering the cloud would launch.
 */
import type { Node, Pod } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import {
  parseQuantity,
  resourceListFromQuantities,
  Scheduler,
  type ExistingNodeInput,
  type Requirements,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import { allowUndefinedLabels, type Cloud } from '../clouds/cloud.js';
import { CliError, ManifestError } from '../errors.js';
import type { ManifestDocument } from '../manifests/document.js';
import { inventory, type Inventory } from '../manifests/inventory.js';
import { expandWorkloads, type ExpandedWorkloads } from '../workloads/expand.js';
import { validateDocuments } from '../validation/validate-documents.js';
import { chooseLaunch, type Launch } from './launch.js';
import { planNodePools, type PlannedNodePool } from './node-pools.js';

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
  readonly pods: readonly Pod[];
  /** Pod requests plus daemonset overhead, canonical units. */
  readonly requests: ResourceList;
  /** The node claim's requirements (NodePool template narrowed by its pods). */
  readonly requirements: Requirements;
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
}

/**
 * Runs the simulation of `documents` on `cloud`. Raises a ManifestError for invalid NodePools
 * or NodeClasses in the input (first problem, with the count of others) or malformed
 * workloads; a CliError when there is nothing to schedule or a node cannot be read.
 */
export function simulate(
  documents: readonly ManifestDocument[],
  cloud: Cloud,
  options: SimulateOptions = {},
): Simulation {
  const inv = inventory(documents);
  rejectInvalid(inv, cloud);
  const plan = planNodePools(inv.nodePools, inv.nodeClasses, cloud);
  const workloads = expandWorkloads(inv.workloads, {
    ...(options.scale === undefined ? {} : { scale: options.scale }),
    ...(options.now === undefined ? {} : { now: options.now }),
    checkQuantity: (q) => void parseQuantity(q),
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
  if (workloads.pending.length === 0) {
    throw new CliError(
      `nothing to schedule: no pending pods in the input (read ${documents.length} objects; workloads are Deployments, StatefulSets, ReplicaSets, ReplicationControllers, Jobs, CronJobs and Pods)`,
    );
  }

  const instanceTypes = new Map<string, readonly InstanceType[]>();
  for (const p of plan.pools)
    instanceTypes.set(
      p.nodePool.metadata.name ?? '',
      cloud.instanceTypes(p.defaultNodeClass ? undefined : p.nodeClass),
    );

  const scheduler = new Scheduler<InstanceType>({
    nodePools: plan.pools.map((p) => p.nodePool),
    instanceTypes,
    existingNodes: existingNodes(inv, workloads.boundPods),
    daemonSetPods: workloads.daemonSetPods,
    solver: options.solver ?? 'wasm',
  });
  const results = scheduler.solve(workloads.pending);

  const allowUndefined = allowUndefinedLabels(cloud);
  const nodeClaims: SimulatedNodeClaim[] = [];
  const podErrors = [...results.podErrors].map(([pod, reason]) => ({ pod, reason }));
  for (const claim of results.newNodeClaims) {
    const launch = chooseLaunch(claim.instanceTypeOptions, claim.requirements, allowUndefined);
    if (!launch) {
      for (const pod of claim.pods)
        podErrors.push({
          pod,
          reason: `no available offering for node claim of NodePool "${claim.nodePoolName}"`,
        });
      continue;
    }
    nodeClaims.push({
      nodePool: claim.nodePoolName,
      launch,
      instanceTypeOptions: claim.instanceTypeOptions,
      pods: claim.pods,
      requests: claim.requests,
      requirements: claim.requirements,
    });
  }
  return {
    cloud,
    pools: plan.pools,
    notes,
    workloads,
    nodeClaims,
    existingNodes: results.existingNodes.map((n) => ({ name: n.name, pods: n.pods })),
    podErrors,
    pendingPods: workloads.pending.length,
  };
}

/** Invalid NodePools or NodeClasses stop the simulation: a pool the apiserver would reject cannot run. */
function rejectInvalid(inv: Inventory, cloud: Cloud): void {
  const docs = [...inv.nodePools, ...inv.nodeClasses];
  const { problems } = validateDocuments(docs, [cloud]);
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
    const node = doc.object as unknown as Node;
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
