/**
 * Liveness (upstream `nodeclaim/lifecycle/liveness.go`, behavior 19): a NodeClaim that never
 * launches or never registers is deleted so its pods can be provisioned elsewhere.
 * - Not launched 5 min after creation (`launch_timeout`).
 * - Not registered 15 min after the `Registered` condition last changed (or after creation when
 *   it has none) (`registration_timeout`).
 * Otherwise it asks to be looked at again when the next deadline passes.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { timeMs } from '../../clock.js';
import { getCondition, isTrue } from '../../conditions.js';
import { isNotFound } from '../../kube/client.js';
import type { LifecycleContext, StepResult } from './context.js';
import { stepDone } from './context.js';

/** Seconds a NodeClaim may stay unlaunched. */
export const LAUNCH_TIMEOUT_SECONDS = 5 * 60;
/** Seconds a launched NodeClaim may stay unregistered. */
export const REGISTRATION_TIMEOUT_SECONDS = 15 * 60;

/** See the module comment. */
export class Liveness {
  constructor(private readonly ctx: LifecycleContext) {}

  async reconcile(nodeClaim: NodeClaim): Promise<StepResult> {
    if (isTrue(nodeClaim, NodeClaimConditions.Registered)) return stepDone;
    const now = this.ctx.clock.now();
    const created = timeMs(nodeClaim.metadata.creationTimestamp) ?? now;
    if (!isTrue(nodeClaim, NodeClaimConditions.Launched)) {
      const deadline = created + LAUNCH_TIMEOUT_SECONDS * 1000;
      if (now >= deadline) return this.#delete(nodeClaim, 'launch_timeout', 'launch');
      return { requeueAfter: (deadline - now) / 1000 };
    }
    const since =
      timeMs(getCondition(nodeClaim, NodeClaimConditions.Registered)?.lastTransitionTime) ??
      created;
    const deadline = since + REGISTRATION_TIMEOUT_SECONDS * 1000;
    if (now >= deadline) return this.#delete(nodeClaim, 'registration_timeout', 'registration');
    return { requeueAfter: (deadline - now) / 1000 };
  }

  async #delete(nodeClaim: NodeClaim, reason: string, what: string): Promise<StepResult> {
    const name = nodeClaim.metadata.name ?? '';
    this.ctx.client.recordEvent({
      involved: { kind: 'NodeClaim', name },
      type: 'Warning',
      reason: 'LivenessTimeout',
      message: `Deleting NodeClaim ${name}: ${what} timed out (${reason})`,
    });
    try {
      await this.ctx.client.delete('NodeClaim', { name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return { deleted: true };
  }
}
