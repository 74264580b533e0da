/**
 * NodePool readiness (upstream `nodepool/readiness`): mirrors the
 * referenced NodeClass into `NodeClassReady` — False when it is missing or being deleted, else
 * its `Ready` status — and sets the root `Ready` = `ValidationSucceeded` ∧ `NodeClassReady`
 * (the provisioner only launches from Ready pools). A pool whose NodeClass kind this cloud
 * provider does not manage is left alone.
 */
import type { NodePool } from '@karpenter-ts/api';
import { NodePoolConditions } from '@karpenter-ts/api';
import { managesNodeClass, type CloudProvider } from '@karpenter-ts/cloudprovider';
import type { Clock } from '../../clock.js';
import { getCondition, setCondition, type ConditionUpdate } from '../../conditions.js';
import { isConflict, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';

/** Options of {@link NodePoolReadiness}. */
export interface NodePoolReadinessOptions {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
}

/** See the module comment. */
export class NodePoolReadiness {
  constructor(private readonly o: NodePoolReadinessOptions) {}

  async reconcile(name: string): Promise<ReconcileResult> {
    const { client, clock, cloudProvider } = this.o;
    const pool = await client.get('NodePool', { name });
    if (pool === undefined) return done;
    const ref = pool.spec.template.spec.nodeClassRef;
    if (!managesNodeClass(cloudProvider, ref)) return done;
    const nodeClass = await client.get('NodeClass', {
      name: ref.name,
      nodeClass: { group: ref.group, kind: ref.kind },
    });
    let nodeClassReady: ConditionUpdate;
    if (nodeClass === undefined) {
      nodeClassReady = {
        type: NodePoolConditions.NodeClassReady,
        status: 'False',
        reason: 'NodeClassNotFound',
        message: `${ref.kind} ${ref.name} not found`,
      };
    } else if (nodeClass.metadata.deletionTimestamp !== undefined) {
      nodeClassReady = {
        type: NodePoolConditions.NodeClassReady,
        status: 'False',
        reason: 'NodeClassTerminating',
        message: `${ref.kind} ${ref.name} is being deleted`,
      };
    } else {
      const ready = getCondition(nodeClass, 'Ready');
      nodeClassReady = {
        type: NodePoolConditions.NodeClassReady,
        status: ready?.status ?? 'Unknown',
        reason: ready?.status === 'True' ? 'NodeClassReady' : ready?.reason || 'NodeClassNotReady',
        message:
          ready?.status === 'True' ? '' : (ready?.message ?? 'NodeClass has no Ready condition'),
      };
    }
    const now = clock.now();
    let changed = setCondition(pool, nodeClassReady, now);
    changed = setCondition(pool, rootReady(pool), now) || changed;
    if (!changed) return done;
    try {
      await client.updateStatus('NodePool', pool);
    } catch (err) {
      if (isConflict(err)) return requeueAfter(1);
      throw err;
    }
    return done;
  }
}

/** `Ready`: True when ValidationSucceeded and NodeClassReady are True, else the first that is not. */
function rootReady(pool: NodePool): ConditionUpdate {
  for (const type of [NodePoolConditions.ValidationSucceeded, NodePoolConditions.NodeClassReady]) {
    const c = getCondition(pool, type);
    if (c?.status !== 'True') {
      return {
        type: NodePoolConditions.Ready,
        status: c?.status === 'False' ? 'False' : 'Unknown',
        reason: c?.reason || `${type}NotTrue`,
        message: c?.message ?? '',
      };
    }
  }
  return { type: NodePoolConditions.Ready, status: 'True' };
}
