/**
 * The `SimNodeClass` (`karpenter.sim/v1`, cluster-scoped) the sim provider's NodePools
 * reference, and its status controller: a SimNodeClass has nothing to resolve, so it is
 * `Ready=True` as soon as it exists (a real provider checks images, subnets, identity first).
 */
import { SimNodeClassKind } from '@karpenter-ts/cloudprovider';
import {
  writeNodeClassReady,
  type Clock,
  type KubeClient,
  type ReconcileResult,
} from '@karpenter-ts/controllers';

/** Where SimNodeClass lives in the API (the shape @karpenter-ts/kube takes for NodeClass kinds). */
export const SimNodeClassResource = {
  group: SimNodeClassKind.group,
  version: 'v1',
  plural: 'simnodeclasses',
  kind: SimNodeClassKind.kind,
  namespaced: false,
} as const;

/** Sets `Ready=True` on the named SimNodeClass if it is not already; requeues 1 s on a conflict. */
export async function reconcileSimNodeClass(
  client: KubeClient,
  clock: Clock,
  name: string,
): Promise<ReconcileResult> {
  const nodeClass = await client.get('NodeClass', { name, nodeClass: SimNodeClassKind });
  if (nodeClass === undefined || nodeClass.kind !== SimNodeClassKind.kind) return {};
  if (nodeClass.metadata.deletionTimestamp !== undefined) return {};
  const conditions = nodeClass.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const generation = nodeClass.metadata.generation;
  if (ready?.status === 'True' && ready.observedGeneration === generation) return {};
  return writeNodeClassReady(
    client,
    clock,
    nodeClass,
    { status: 'True', reason: 'Ready', message: '' },
    {},
    {},
  );
}
