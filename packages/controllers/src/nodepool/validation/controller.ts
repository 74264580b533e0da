/**
 * NodePool validation (upstream `nodepool/validation`): runs the runtime checks of
 * @karpenter-ts/api on each NodePool and reports them
 * in `ValidationSucceeded` (False with the violations as message). The root `Ready` is left to
 * the readiness controller.
 */
import {
  NodePoolConditions,
  validateNodePoolRuntime,
  type RuntimeValidationOptions,
} from '@karpenter-ts/api';
import type { Clock } from '../../clock.js';
import { setCondition } from '../../conditions.js';
import { isConflict, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';

/** Options of {@link NodePoolValidation}. */
export interface NodePoolValidationOptions extends RuntimeValidationOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
}

/** See the module comment. */
export class NodePoolValidation {
  constructor(private readonly o: NodePoolValidationOptions) {}

  async reconcile(name: string): Promise<ReconcileResult> {
    const pool = await this.o.client.get('NodePool', { name });
    if (pool === undefined) return done;
    const violations = validateNodePoolRuntime(pool, this.o);
    const changed = setCondition(
      pool,
      violations.length === 0
        ? { type: NodePoolConditions.ValidationSucceeded, status: 'True' }
        : {
            type: NodePoolConditions.ValidationSucceeded,
            status: 'False',
            reason: 'NodePoolValidationFailed',
            message: violations.map((v) => `${v.path}: ${v.message}`).join('; '),
          },
      this.o.clock.now(),
    );
    if (!changed) return done;
    try {
      await this.o.client.updateStatus('NodePool', pool);
    } catch (err) {
      if (isConflict(err)) return requeueAfter(1);
      throw err;
    }
    return done;
  }
}
