/**
 * Keeps a {@link Cluster} in step with the API: an initial list of every kind it tracks, then
 * watch events (upstream `state/informer/*`). The real client's watch is an informer; the
 * in-memory client's is synchronous.
 */
import type { KubeClient } from '../kube/client.js';
import { podKey } from '../pods.js';
import type { Cluster } from './cluster.js';

/**
 * Lists Nodes, NodeClaims, Pods, DaemonSets, LimitRanges and the storage objects (PVCs, PVs,
 * StorageClasses, CSINodes) into the cluster state and subscribes to their changes. Returns a function that stops the watches.
 */
export async function startClusterInformers(
  client: KubeClient,
  cluster: Cluster,
): Promise<() => void> {
  const stops = [
    client.watch('Node', (e) =>
      e.type === 'DELETED'
        ? cluster.deleteNode(e.object.metadata?.name ?? '')
        : cluster.updateNode(e.object),
    ),
    client.watch('NodeClaim', (e) =>
      e.type === 'DELETED'
        ? cluster.deleteNodeClaim(e.object.metadata.name ?? '')
        : cluster.updateNodeClaim(e.object),
    ),
    client.watch('Pod', (e) =>
      e.type === 'DELETED' ? cluster.deletePod(podKey(e.object)) : cluster.updatePod(e.object),
    ),
    client.watch('DaemonSet', (e) =>
      e.type === 'DELETED'
        ? cluster.deleteDaemonSet(
            `${e.object.metadata?.namespace ?? 'default'}/${e.object.metadata?.name}`,
          )
        : cluster.updateDaemonSet(e.object),
    ),
    client.watch('LimitRange', (e) =>
      e.type === 'DELETED'
        ? cluster.deleteLimitRange(
            `${e.object.metadata?.namespace ?? 'default'}/${e.object.metadata?.name}`,
          )
        : cluster.updateLimitRange(e.object),
    ),
    client.watch('PersistentVolumeClaim', (e) =>
      e.type === 'DELETED'
        ? cluster.storage.deleteClaim(e.object)
        : cluster.storage.updateClaim(e.object),
    ),
    client.watch('PersistentVolume', (e) =>
      e.type === 'DELETED'
        ? cluster.storage.deleteVolume(e.object)
        : cluster.storage.updateVolume(e.object),
    ),
    client.watch('StorageClass', (e) =>
      e.type === 'DELETED'
        ? cluster.storage.deleteStorageClass(e.object)
        : cluster.storage.updateStorageClass(e.object),
    ),
    client.watch('CSINode', (e) =>
      e.type === 'DELETED'
        ? cluster.storage.deleteCSINode(e.object)
        : cluster.storage.updateCSINode(e.object),
    ),
  ];
  for (const n of await client.list('Node')) cluster.updateNode(n);
  for (const c of await client.list('NodeClaim')) cluster.updateNodeClaim(c);
  for (const p of await client.list('Pod')) cluster.updatePod(p);
  for (const d of await client.list('DaemonSet')) cluster.updateDaemonSet(d);
  for (const l of await client.list('LimitRange')) cluster.updateLimitRange(l);
  for (const c of await client.list('PersistentVolumeClaim')) cluster.storage.updateClaim(c);
  for (const v of await client.list('PersistentVolume')) cluster.storage.updateVolume(v);
  for (const c of await client.list('StorageClass')) cluster.storage.updateStorageClass(c);
  for (const c of await client.list('CSINode')) cluster.storage.updateCSINode(c);
  return () => {
    for (const stop of stops) stop();
  };
}
