/**
 * What a provisioning run on the in-memory cluster decided, read back from the cluster as the
 * controllers left it: the NodeClaims they created (launched instance type and offering, the
 * instance-type options the provisioner gave them, the pods bound to their Nodes), the pods bound
 * to Nodes of the input, and the pods left pending with the reason the provisioner gave
 * (its last `FailedScheduling` event).
 */
import type { NodeClaim, Pod } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { orderByPrice, type InstanceType } from '@karpenter-ts/cloudprovider';
import { isActive, isDaemonSetPod, podKey, timeMs } from '@karpenter-ts/controllers';
import {
  addResources,
  podRequests,
  Requirements,
  resourceListFromQuantities,
  subtractResources,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import type { RunningCluster } from '../cluster/cluster-loop.js';
import type { SnapshotRead } from '../snapshot/read-snapshot.js';
import type { SimulatedExistingNode, SimulatedNodeClaim } from './simulate.js';

/** The results of a run (see the module comment). */
export interface ClusterResults {
  readonly nodeClaims: SimulatedNodeClaim[];
  readonly existingNodes: SimulatedExistingNode[];
  readonly podErrors: { pod: Pod; reason: string }[];
  /** Provisioning passes that created NodeClaims (at least 1). */
  readonly rounds: number;
}

const NominatedPrefix = 'Pod should schedule on: nodeclaim/';

/** Reads the results of a run over `read` from `cluster`. */
export async function clusterResults(
  cluster: RunningCluster,
  read: SnapshotRead,
): Promise<ClusterResults> {
  const { client } = cluster;
  const inputClaims = new Set(read.snapshot.nodeClaims.map((c) => c.object.metadata.name));
  const inputBinding = new Map(
    read.snapshot.pods.map((p) => [podKey(p.object), p.object.spec?.nodeName]),
  );
  const pods = (await client.list('Pod')).filter((p) => isActive(p) && !isDaemonSetPod(p));
  // By key, so each NodeClaim sums its nominated pods without a walk over every pod.
  const podsByKey = new Map(pods.map((p) => [podKey(p), p]));
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node) continue;
    let onNode = byNode.get(node);
    if (onNode === undefined) byNode.set(node, (onNode = []));
    onNode.push(pod);
  }
  // The pods each NodeClaim was created for (by NodeClaim), and the provisioner's last word on each pod.
  const nominated = new Map<string, Set<string>>();
  const failed = new Map<string, string>();
  for (const e of client.events) {
    const key = `${e.involved.namespace ?? 'default'}/${e.involved.name}`;
    if (e.reason === 'Nominated' && e.message.startsWith(NominatedPrefix)) {
      const claim = e.message.slice(NominatedPrefix.length);
      nominated.set(claim, (nominated.get(claim) ?? new Set()).add(key));
    } else if (e.reason === 'FailedScheduling')
      failed.set(key, e.message.replace(/^(Failed to schedule pod|Ignoring pod), /, ''));
  }
  const created = (await client.list('NodeClaim')).filter(
    (c) => !inputClaims.has(c.metadata.name) && c.status?.providerID,
  );
  const passes = [...new Set(created.map((c) => timeMs(c.metadata.creationTimestamp) ?? 0))].sort(
    (a, b) => a - b,
  );
  const nodeClaims = created.flatMap((claim): SimulatedNodeClaim[] => {
    const result = claimResult(cluster, claim, byNode, podsByKey, nominated);
    if (result === undefined) return [];
    const round = passes.indexOf(timeMs(claim.metadata.creationTimestamp) ?? 0) + 1;
    return [{ ...result, round }];
  });
  const existingNodes: SimulatedExistingNode[] = [];
  for (const { object: node } of read.snapshot.nodes) {
    const name = node.metadata?.name ?? '';
    const bound = byNode.get(name) ?? [];
    const moved = bound.filter((p) => inputBinding.get(podKey(p)) !== name);
    const nodePool = node.metadata?.labels?.[Labels.NodePool];
    existingNodes.push({
      name,
      ...(nodePool !== undefined ? { nodePool } : {}),
      pods: moved,
      podsBefore: bound.length - moved.length,
    });
  }
  const podErrors = pods
    .filter((p) => !p.spec?.nodeName)
    .map((pod) => ({ pod, reason: failed.get(podKey(pod)) ?? 'not scheduled' }));
  return { nodeClaims, existingNodes, podErrors, rounds: Math.max(1, passes.length) };
}

function claimResult(
  cluster: RunningCluster,
  claim: NodeClaim,
  byNode: ReadonlyMap<string, Pod[]>,
  podsByKey: ReadonlyMap<string, Pod>,
  nominated: ReadonlyMap<string, ReadonlySet<string>>,
): Omit<SimulatedNodeClaim, 'round'> | undefined {
  const labels = claim.metadata.labels ?? {};
  const pool = labels[Labels.NodePool] ?? '';
  const catalog = cluster.cloud.instanceTypes(pool);
  const instanceType = catalog.find((t) => t.name === labels[Labels.InstanceType]);
  const offering = instanceType?.offerings.find(
    (o) => o.zone === labels[Labels.TopologyZone] && o.capacityType === labels[Labels.CapacityType],
  );
  if (instanceType === undefined || offering === undefined) return undefined;
  const requirements = Requirements.fromNodeSelectorRequirements(claim.spec.requirements);
  const names = requirements.get(Labels.InstanceType);
  const options: InstanceType[] = orderByPrice(
    catalog.filter((t) => names.has(t.name)),
    requirements,
  );
  const nodeName = claim.status?.nodeName ?? claim.metadata.name ?? '';
  const pods = byNode.get(nodeName) ?? [];
  // The pods bound there, plus the daemonset overhead the scheduler counted: its requests (the
  // pods it planned for this claim, plus that overhead) minus those pods' requests.
  const mine = nominated.get(claim.metadata.name ?? '') ?? new Set<string>();
  let planned: ResourceList = {};
  for (const key of mine) {
    const pod = podsByKey.get(key);
    if (pod !== undefined) planned = addResources(planned, podRequests(pod));
  }
  const overhead = subtractResources(
    resourceListFromQuantities(claim.spec.resources?.requests ?? {}),
    planned,
  );
  const daemonSetOverhead: ResourceList = {};
  for (const [k, v] of Object.entries(overhead)) if (v > 0) daemonSetOverhead[k] = v;
  let requests: ResourceList = { ...daemonSetOverhead };
  for (const pod of pods) requests = addResources(requests, podRequests(pod));
  return {
    name: claim.metadata.name ?? '',
    nodePool: pool,
    labels: { ...labels },
    annotations: { ...(claim.metadata.annotations ?? {}) },
    specRequirements: claim.spec.requirements,
    daemonSetOverhead,
    launch: { instanceType, offering },
    instanceTypeOptions: options,
    pods,
    requests,
    requirements,
    nodeName,
  };
}
