/**
 * NodePool counter (upstream `nodepool/counter`): keeps
 * `status.resources` (the summed capacity of the pool's nodes plus `nodes`, see
 * `nodePoolResources`) and `status.nodes` (the same node count; the scale subresource's
 * `statusReplicasPath` and the NODES printer column) current. It reads cluster state, not the
 * API, and waits until that state has synced, so a restart never writes a count lower than the
 * truth; then it runs every 5 s. `kubectl get nodepools -o wide` shows these fields.
 *
 * The write goes through the status subresource with the resourceVersion it read: if another
 * controller (validation, readiness) wrote the status meanwhile, it conflicts and retries in
 * 1 s instead of overwriting their conditions; every other status field is kept as read.
 * Upstream sends a merge patch of the two fields instead; the result is the same.
 */
import type { NodePool } from '@karpenter-ts/api';
import { managesNodeClass, type CloudProvider } from '@karpenter-ts/cloudprovider';
import { resourceListFromQuantities, type ResourceList } from '@karpenter-ts/scheduling';
import { isConflict, isNotFound, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';
import type { Cluster } from '../../state/cluster.js';
import { formatNodePoolResources, nodePoolResources } from './resources.js';

/** Seconds between two counts of a pool (upstream's counter period). */
export const NODEPOOL_COUNTER_REQUEUE_SECONDS = 5;

/** Options of {@link NodePoolCounter}. */
export interface NodePoolCounterOptions {
  readonly client: KubeClient;
  /** The cluster state the provisioner uses (fed by `startClusterInformers`). */
  readonly cluster: Cluster;
  /** Only pools whose NodeClass kind this provider manages are counted. */
  readonly cloudProvider: CloudProvider;
}

/** See the module comment. */
export class NodePoolCounter {
  constructor(private readonly o: NodePoolCounterOptions) {}

  /**
   * Counts NodePool `name` and writes its status when the count changed. Returns
   * `{requeueAfter: 5}` after a count, `{requeueAfter: 1}` while cluster state is unsynced or
   * after a write conflict, `{}` for a missing pool or one of a NodeClass kind this provider
   * does not manage. Raises other API errors (the caller retries with backoff).
   */
  async reconcile(name: string): Promise<ReconcileResult> {
    const { client, cluster, cloudProvider } = this.o;
    const pool = await client.get('NodePool', { name });
    if (pool === undefined) return done;
    const ref = pool.spec.template.spec.nodeClassRef;
    if (!managesNodeClass(cloudProvider, ref)) return done;
    if (!(await cluster.synced(client))) return requeueAfter(1);
    const counted = nodePoolResources(cluster, name);
    const nodes = counted.nodes ?? 0;
    if (!sameCount(pool, counted, nodes)) {
      pool.status = {
        ...(pool.status ?? {}),
        resources: formatNodePoolResources(counted),
        nodes,
      };
      try {
        await client.updateStatus('NodePool', pool);
      } catch (err) {
        if (isConflict(err)) return requeueAfter(1);
        if (isNotFound(err)) return done;
        throw err;
      }
    }
    return requeueAfter(NODEPOOL_COUNTER_REQUEUE_SECONDS);
  }
}

/**
 * Whether the pool's status already says this (quantities compared by value, as upstream's
 * semantic equality: "1Gi" equals "1024Mi"); unparsable stored quantities never match.
 */
function sameCount(pool: NodePool, counted: ResourceList, nodes: number): boolean {
  const stored = pool.status?.resources;
  if (stored === undefined || pool.status?.nodes !== nodes) return false;
  const want = formatNodePoolResources(counted);
  const names = Object.keys(want);
  if (Object.keys(stored).length !== names.length || names.some((k) => !(k in stored)))
    return false;
  try {
    const have = resourceListFromQuantities(stored);
    const expected = resourceListFromQuantities(want);
    return names.every((k) => have[k] === expected[k]);
  } catch {
    return false;
  }
}
