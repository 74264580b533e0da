/**
 * Loads a {@link ClusterSnapshot} into a {@link MemoryKubeClient}, as the cluster held it: every
 * object keeps its uid, creation time and status (MemoryKubeClient.restore), so ages, pod start
 * times, conditions and owner references read as they did. The snapshot is checked first
 * ({@link snapshotProblems}); with any problem nothing is loaded.
 *
 * A Node needs a provider ID to count as capacity (cluster state keys machines by it, and the
 * scheduler only places pods on nodes that have one). A Node without `spec.providerID` is given
 * its NodeClaim's (when a NodeClaim names it in `status.nodeName`), or `snapshot:///<name>` when
 * it is unmanaged; each such change is a note.
 */
import type { Node } from '@karpenter-ts/api';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import {
  snapshotProblems,
  SnapshotError,
  unmanagedNodes,
  type ClusterSnapshot,
} from './snapshot.js';

/** Provider ID scheme given to unmanaged Nodes that have none. */
export const SnapshotProviderIDPrefix = 'snapshot:///';

/** What {@link loadSnapshot} did besides storing the objects. */
export interface LoadedSnapshot {
  /** Names of the Nodes no NodeClaim owns (unmanaged capacity), in snapshot order. */
  readonly unmanagedNodes: readonly string[];
  /** Changes made so the objects work together (provider IDs given). */
  readonly notes: readonly string[];
}

/**
 * Checks and stores the snapshot's objects (NodeClasses, NodePools, NodeOverlays, NodeClaims,
 * Nodes, LimitRanges, StorageClasses, PersistentVolumes, PersistentVolumeClaims, CSINodes,
 * DaemonSets, PodDisruptionBudgets, Pods, in that order). Raises {@link SnapshotError} with every
 * problem before storing anything.
 */
export async function loadSnapshot(
  client: MemoryKubeClient,
  snapshot: ClusterSnapshot,
): Promise<LoadedSnapshot> {
  const problems = snapshotProblems(snapshot);
  if (problems.length > 0) throw new SnapshotError(problems);
  const notes: string[] = [];
  const unmanaged = new Set(unmanagedNodes(snapshot).map((n) => n.object));
  const claimIdByNode = new Map<string, string>();
  for (const { object } of snapshot.nodeClaims) {
    if (object.status?.nodeName && object.status.providerID)
      claimIdByNode.set(object.status.nodeName, object.status.providerID);
  }
  for (const { object } of snapshot.nodeClasses) await client.restore('NodeClass', object);
  for (const { object } of snapshot.nodePools) await client.restore('NodePool', object);
  for (const { object } of snapshot.nodeOverlays) await client.restore('NodeOverlay', object);
  for (const { object } of snapshot.nodeClaims) await client.restore('NodeClaim', object);
  for (const { object } of snapshot.nodes) {
    const node: Node = structuredClone(object);
    const name = node.metadata?.name ?? '';
    if (!node.spec?.providerID) {
      const id = claimIdByNode.get(name) ?? `${SnapshotProviderIDPrefix}${name}`;
      node.spec = { ...(node.spec ?? {}), providerID: id };
      notes.push(
        `Node ${name} has no spec.providerID: given ${id}${unmanaged.has(object) ? ' (unmanaged capacity)' : ' (its NodeClaim)'}`,
      );
    }
    await client.restore('Node', node);
  }
  // Storage and LimitRanges before the pods that use them.
  for (const { object } of snapshot.limitRanges) await client.restore('LimitRange', object);
  for (const { object } of snapshot.storageClasses) await client.restore('StorageClass', object);
  for (const { object } of snapshot.persistentVolumes)
    await client.restore('PersistentVolume', object);
  for (const { object } of snapshot.persistentVolumeClaims)
    await client.restore('PersistentVolumeClaim', object);
  for (const { object } of snapshot.csiNodes) await client.restore('CSINode', object);
  for (const { object } of snapshot.daemonSets) await client.restore('DaemonSet', object);
  for (const { object } of snapshot.podDisruptionBudgets)
    await client.restore('PodDisruptionBudget', object);
  for (const { object } of snapshot.pods) await client.restore('Pod', object);
  return {
    unmanagedNodes: [...unmanaged].map((n) => n.metadata?.name ?? ''),
    notes,
  };
}
