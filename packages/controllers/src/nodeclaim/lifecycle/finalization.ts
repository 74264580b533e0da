/**
 * Finalization of a deleted NodeClaim (upstream `nodeclaim/lifecycle/controller.go` finalize,
 * behavior 19), in this order:
 * 1. write `karpenter.sh/nodeclaim-termination-timestamp` = deletionTimestamp +
 *    terminationGracePeriod (once, when the NodeClaim has a grace period);
 * 2. delete its Node(s) and wait until they are gone (node termination drains them);
 * 3. when launched, call `cloudProvider.delete` until it raises NodeClaimNotFoundError, with
 *    `InstanceTerminating=True` meanwhile (requeue 5 s); a NodeClaim whose launch result was
 *    never written has no provider ID to delete: garbage collection removes such an instance;
 * 4. remove the `karpenter.sh/termination` finalizer.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Annotations, Finalizers, NodeClaimConditions, parseDuration } from '@karpenter-ts/api';
import { isNodeClaimNotFoundError } from '@karpenter-ts/cloudprovider';
import { timeMs } from '../../clock.js';
import { setCondition } from '../../conditions.js';
import { isNotFound } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';
import type { LifecycleContext } from './context.js';

/** Seconds between cloud delete calls while the instance terminates. */
export const INSTANCE_TERMINATION_REQUEUE_SECONDS = 5;

/** See the module comment. */
export class Finalization {
  constructor(private readonly ctx: LifecycleContext) {}

  async reconcile(nodeClaim: NodeClaim): Promise<ReconcileResult> {
    if (!(nodeClaim.metadata.finalizers ?? []).includes(Finalizers.Termination)) return done;
    const { client, clock, cloudProvider } = this.ctx;
    let current = nodeClaim;

    const stamp = terminationTimestamp(current);
    if (
      stamp !== undefined &&
      current.metadata.annotations?.[Annotations.NodeClaimTerminationTimestamp] === undefined
    ) {
      const next = structuredClone(current);
      next.metadata.annotations = {
        ...(next.metadata.annotations ?? {}),
        [Annotations.NodeClaimTerminationTimestamp]: stamp,
      };
      current = await client.update('NodeClaim', next);
    }

    const providerID = current.status?.providerID ?? '';
    if (providerID !== '') {
      const nodes = await client.list('Node', { providerID });
      if (nodes.length > 0) {
        for (const node of nodes) {
          if (node.metadata?.deletionTimestamp !== undefined) continue;
          try {
            await client.delete('Node', { name: node.metadata?.name ?? '' });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        return requeueAfter(1);
      }
      try {
        await cloudProvider.delete(current);
        const next = structuredClone(current);
        if (
          setCondition(
            next,
            { type: NodeClaimConditions.InstanceTerminating, status: 'True' },
            clock.now(),
          )
        ) {
          await client.updateStatus('NodeClaim', next);
        }
        return requeueAfter(INSTANCE_TERMINATION_REQUEUE_SECONDS);
      } catch (err) {
        if (!isNodeClaimNotFoundError(err)) throw err;
      }
    }

    const latest = await client.get('NodeClaim', { name: current.metadata.name ?? '' });
    if (latest === undefined) return done;
    latest.metadata.finalizers = (latest.metadata.finalizers ?? []).filter(
      (f) => f !== Finalizers.Termination,
    );
    await client.update('NodeClaim', latest);
    client.recordEvent({
      involved: { kind: 'NodeClaim', name: latest.metadata.name ?? '' },
      type: 'Normal',
      reason: 'Finalized',
      message: 'Finalized karpenter.sh/termination',
    });
    return done;
  }
}

/**
 * RFC 3339 `deletionTimestamp + terminationGracePeriod`, or undefined when the NodeClaim is not
 * deleting or has no (valid) grace period.
 */
export function terminationTimestamp(nodeClaim: NodeClaim): string | undefined {
  const deleted = timeMs(nodeClaim.metadata.deletionTimestamp);
  const tgp = nodeClaim.spec.terminationGracePeriod;
  if (deleted === undefined || tgp === undefined) return undefined;
  let seconds: number | null;
  try {
    seconds = parseDuration(tgp);
  } catch {
    return undefined;
  }
  if (seconds === null) return undefined;
  return new Date(deleted + seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
}
