/**
 * Setting a workload's replicas: the ReplicaSet stand-in creates or deletes pods on its next
 * tick, and the PodDisruptionBudgets selecting the workload's pods learn the new expected count
 * (`status.expectedPods`, which the in-memory API server reads as the workload's scale, as
 * kube-controller-manager's disruption controller reads the scale subresource).
 */
import { compileLabelSelector } from '@karpenter-ts/scheduling';
import type { ActionContext } from './context.js';

/** Sets the replicas of each workload (by `namespace/name`) that does not already have them. */
export async function setReplicas(
  ctx: ActionContext,
  changes: ReadonlyMap<string, number>,
): Promise<void> {
  const changed: string[] = [];
  for (const [key, replicas] of changes) {
    const w = ctx.workloads.get(key);
    if (w === undefined || ctx.replicas.get(key) === replicas) continue;
    ctx.autoscaler.replicaSets.scale(w.replicaSet.name, replicas, w.replicaSet.namespace);
    ctx.replicas.set(key, replicas);
    changed.push(key);
  }
  if (changed.length > 0) await updateBudgets(ctx);
}

/** Sets `status.expectedPods` of every PDB to the replicas of the workloads it selects. */
export async function updateBudgets(ctx: ActionContext): Promise<void> {
  const { client } = ctx.setup.cluster;
  for (const pdb of await client.list('PodDisruptionBudget')) {
    const namespace = pdb.metadata?.namespace ?? 'default';
    const selector = compileLabelSelector(pdb.spec?.selector);
    let expected = 0;
    for (const [key, w] of ctx.workloads) {
      if ((w.replicaSet.namespace ?? 'default') !== namespace) continue;
      if (!selector.matches(w.replicaSet.template.metadata?.labels ?? {})) continue;
      expected += ctx.replicas.get(key) ?? 0;
    }
    if (pdb.status?.expectedPods === expected) continue;
    await client.updateStatus('PodDisruptionBudget', {
      ...pdb,
      status: {
        currentHealthy: 0,
        desiredHealthy: 0,
        disruptionsAllowed: 0,
        ...(pdb.status ?? {}),
        expectedPods: expected,
      },
    });
  }
}
