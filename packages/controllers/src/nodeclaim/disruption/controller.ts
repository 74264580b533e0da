/**
 * The NodeClaim disruption-conditions controller (upstream `nodeclaim/disruption/controller.go`):
 * per NodeClaim of a NodePool, keeps `Consolidatable` (see `consolidatable.ts`) and `Drifted`
 * (see `drift.ts`) up to date and writes the status when either changed. Requeues at the earlier
 * of the next drift check (5 min) and the moment the NodeClaim becomes consolidatable.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Labels, NodeClaimConditions } from '@karpenter-ts/api';
import type { CloudProvider } from '@karpenter-ts/cloudprovider';
import type { Clock } from '../../clock.js';
import { getCondition, isTrue, setCondition } from '../../conditions.js';
import { isConflict, isNotFound, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';
import { reconcileConsolidatable } from './consolidatable.js';
import {
  DriftRequeueSeconds,
  instanceTypeDrift,
  InstanceTypeCheckTimes,
  requirementsDrift,
  staticDrift,
} from './drift.js';
import { removeCondition } from './remove-condition.js';

/** Dependencies of {@link NodeClaimDisruption}. */
export interface NodeClaimDisruptionOptions {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
  /**
   * Keys an offering may require that a NodeClaim may lack (upstream's well-known labels, with
   * the provider's added: `allowUndefinedWellKnownLabels(providerLabels)`); default Karpenter's
   * own. Passed to {@link instanceTypeDrift}.
   */
  readonly allowUndefinedLabels?: ReadonlySet<string>;
}

/** See the module comment. */
export class NodeClaimDisruption {
  readonly #checks = new InstanceTypeCheckTimes();

  constructor(private readonly o: NodeClaimDisruptionOptions) {}

  /** Reconciles the NodeClaim named `name`. */
  async reconcile(name: string): Promise<ReconcileResult> {
    const { client, clock } = this.o;
    const nodeClaim = await client.get('NodeClaim', { name });
    if (nodeClaim === undefined) return done;
    if (nodeClaim.metadata.deletionTimestamp !== undefined) {
      this.#checks.forget(nodeClaim);
      return done;
    }
    const poolName = nodeClaim.metadata.labels?.[Labels.NodePool];
    if (poolName === undefined) return done;
    const nodePool = await client.get('NodePool', { name: poolName });
    if (nodePool === undefined) return done;
    const now = clock.now();
    const next = structuredClone(nodeClaim);
    const consolidatable = reconcileConsolidatable(nodePool, next, now);
    const drifted = await this.#reconcileDrift(nodePool, next, now);
    if (consolidatable.changed || drifted) {
      try {
        await client.updateStatus('NodeClaim', next);
      } catch (err) {
        if (isConflict(err)) return requeueAfter(1);
        if (isNotFound(err)) return done;
        throw err;
      }
    }
    return requeueAfter(Math.min(DriftRequeueSeconds, consolidatable.requeueAfter ?? Infinity));
  }

  async #reconcileDrift(
    nodePool: Parameters<typeof staticDrift>[0],
    nodeClaim: NodeClaim,
    now: number,
  ): Promise<boolean> {
    if (!isTrue(nodeClaim, NodeClaimConditions.Launched)) {
      return removeCondition(nodeClaim, NodeClaimConditions.Drifted);
    }
    let reason = staticDrift(nodePool, nodeClaim) || requirementsDrift(nodePool, nodeClaim);
    if (reason === '') {
      const previous = getCondition(nodeClaim, NodeClaimConditions.Drifted);
      if (this.#checks.due(nodeClaim, now)) {
        reason = await instanceTypeDrift(
          this.o.cloudProvider,
          nodePool,
          nodeClaim,
          this.o.allowUndefinedLabels,
        );
      } else if (previous?.status === 'True' && previous.reason === 'InstanceTypeNotFound') {
        reason = 'InstanceTypeNotFound'; // Not rechecked yet: it stands.
      }
    }
    if (reason === '') reason = await this.o.cloudProvider.isDrifted(nodeClaim);
    if (reason === '') return removeCondition(nodeClaim, NodeClaimConditions.Drifted);
    return setCondition(
      nodeClaim,
      { type: NodeClaimConditions.Drifted, status: 'True', reason, message: reason },
      now,
    );
  }
}
