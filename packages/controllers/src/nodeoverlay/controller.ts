/**
 * The NodeOverlay controller (upstream `controllers/nodeoverlay`, gate NodeOverlay): one pass
 * lists every NodeOverlay and NodePool, lists each pool's
 * instance types from the provider itself (without overlays), evaluates the overlays
 * (evaluate.ts), writes each overlay's `ValidationSucceeded` and root `Ready` condition (False
 * with reason `RuntimeValidation` or `Conflict`), and only then swaps the evaluation into the
 * {@link InstanceTypeStore} the overlaid cloud provider reads. Runs on NodeOverlay, NodePool and
 * NodeClass changes and every 6 h (the provider's catalog and prices move).
 */
import type { RuntimeValidationOptions } from '@karpenter-ts/api';
import { NodeOverlayConditions } from '@karpenter-ts/api';
import type { CloudProvider, InstanceType } from '@karpenter-ts/cloudprovider';
import type { Clock } from '../clock.js';
import { setCondition } from '../conditions.js';
import { isConflict, isNotFound, type KubeClient } from '../kube/client.js';
import { requeueAfter, type ReconcileResult } from '../reconciler.js';
import { evaluateNodeOverlays, type NodeOverlayEvaluationResult } from './evaluate.js';
import type { InstanceTypeStore } from './instance-type-store.js';

/** Seconds between evaluations when nothing changes (upstream: 6 h). */
export const NodeOverlayReevaluationSeconds = 6 * 60 * 60;

/** Options of {@link NodeOverlayController}. */
export interface NodeOverlayControllerOptions {
  readonly client: KubeClient;
  /** The provider itself, not the overlaid one. */
  readonly cloudProvider: CloudProvider;
  readonly store: InstanceTypeStore;
  readonly clock: Clock;
  /** The provider's label rules for runtime validation. */
  readonly validation?: RuntimeValidationOptions;
  /** Keys offerings pin beyond the well-known labels (see EvaluateOptions). */
  readonly allowUndefinedLabels?: ReadonlySet<string>;
}

/** See the module comment. */
export class NodeOverlayController {
  /** The last evaluation's result (refused overlays and order), for callers that report it. */
  last: NodeOverlayEvaluationResult | undefined;

  constructor(private readonly o: NodeOverlayControllerOptions) {}

  /**
   * One pass (see the module comment). A status write that conflicts, or an overlay deleted
   * meanwhile, requeues in 1 s without swapping the evaluation (upstream recomputes). A pool
   * whose instance types cannot be listed stays unevaluated (its provisioning waits) and the
   * pass requeues in 10 s.
   */
  async reconcile(): Promise<ReconcileResult> {
    const { client, cloudProvider, clock } = this.o;
    const overlays = await client.list('NodeOverlay');
    const pools = await client.list('NodePool');
    const instanceTypes = new Map<string, readonly InstanceType[]>();
    let listingFailed = false;
    for (const pool of pools) {
      try {
        instanceTypes.set(pool.metadata.name ?? '', await cloudProvider.getInstanceTypes(pool));
      } catch (err) {
        listingFailed = true;
        client.recordEvent({
          involved: { kind: 'NodePool', name: pool.metadata.name ?? '' },
          type: 'Warning',
          reason: 'NodeOverlayEvaluationFailed',
          message: `listing instance types failed: ${(err as Error).message}`,
        });
      }
    }
    const result = evaluateNodeOverlays(overlays, pools, instanceTypes, {
      ...(this.o.validation ? { validation: this.o.validation } : {}),
      ...(this.o.allowUndefinedLabels ? { allowUndefinedLabels: this.o.allowUndefinedLabels } : {}),
    });
    for (const overlay of overlays) {
      const refused = result.refused.get(overlay.metadata.name ?? '');
      let changed = false;
      for (const type of [NodeOverlayConditions.ValidationSucceeded, NodeOverlayConditions.Ready]) {
        changed =
          setCondition(
            overlay,
            refused === undefined
              ? { type, status: 'True' }
              : { type, status: 'False', reason: refused.reason, message: refused.message },
            clock.now(),
          ) || changed;
      }
      if (!changed) continue;
      try {
        await client.updateStatus('NodeOverlay', overlay);
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) return requeueAfter(1);
        throw err;
      }
    }
    this.o.store.replace(result.evaluation);
    this.last = result;
    return requeueAfter(listingFailed ? 10 : NodeOverlayReevaluationSeconds);
  }
}
