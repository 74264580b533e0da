/**
 * The cluster side of the sim provider's kwok-like mode ({@link KwokClusterApi}) over the
 * controllers' {@link KubeClient}, plus node Leases in `kube-node-lease` through a raw request
 * function (Leases are not a kind the controllers use).
 */
import type { Node, Taint } from '@karpenter-ts/api';
import type { KwokClusterApi } from '@karpenter-ts/cloudprovider';
import { AlreadyExistsError, isNotFound, type KubeClient } from '@karpenter-ts/controllers';

/** Sends one request to the API server and resolves with the parsed answer (KubeApiError family on failure). */
export type RawRequest = (
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  options?: { body?: unknown; contentType?: string },
) => Promise<unknown>;

/** The namespace of node heartbeat Leases. */
export const NodeLeaseNamespace = 'kube-node-lease';

/** Implements every duty of {@link KwokClusterApi}; leases only when `request` is given. */
export function kwokClusterApi(client: KubeClient, request?: RawRequest): KwokClusterApi {
  const api: KwokClusterApi = {
    async createNode(node: Node) {
      try {
        await client.create('Node', node);
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
      }
    },
    async deleteNode(name: string) {
      try {
        await client.delete('Node', { name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    podsOnNode: (nodeName: string) => client.list('Pod', { nodeName }),
    async forceDeletePod(namespace: string, name: string, uid: string) {
      try {
        await client.delete(
          'Pod',
          { namespace, name },
          { gracePeriodSeconds: 0, ...(uid ? { uid } : {}) },
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    async removeNodeTaints(nodeName: string, taints: readonly Taint[]) {
      const node = await client.get('Node', { name: nodeName });
      if (node === undefined) return;
      const current = node.spec?.taints ?? [];
      const kept = current.filter(
        (t) => !taints.some((x) => x.key === t.key && x.effect === t.effect),
      );
      if (kept.length === current.length) return;
      await client.patch(
        'Node',
        { name: nodeName },
        { spec: { taints: kept } },
        node.metadata?.resourceVersion ? { resourceVersion: node.metadata.resourceVersion } : {},
      );
    },
  };
  if (request !== undefined) {
    api.renewNodeLease = async (nodeName: string, leaseDurationSeconds: number) => {
      const node = await client.get('Node', { name: nodeName });
      const owner =
        node?.metadata?.uid !== undefined
          ? [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid }]
          : undefined;
      const spec = {
        holderIdentity: nodeName,
        leaseDurationSeconds,
        renewTime: microTime(new Date()),
      };
      const path = `/apis/coordination.k8s.io/v1/namespaces/${NodeLeaseNamespace}/leases`;
      try {
        await request('PATCH', `${path}/${encodeURIComponent(nodeName)}`, {
          body: { metadata: owner ? { ownerReferences: owner } : {}, spec },
          contentType: 'application/merge-patch+json',
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await request('POST', path, {
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name: nodeName,
              namespace: NodeLeaseNamespace,
              ...(owner ? { ownerReferences: owner } : {}),
            },
            spec,
          },
        });
      }
    };
  }
  return api;
}

/** RFC 3339 with microseconds, the format of `metav1.MicroTime`. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
