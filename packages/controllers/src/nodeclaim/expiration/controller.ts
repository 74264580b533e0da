/**
 * Expiration (upstream `nodeclaim/expiration/controller.go`): a NodeClaim older than its
 * `spec.expireAfter` is deleted, forcefully: no disruption budget,
 * PDB pre-check or do-not-disrupt stops it (the drain still honours PDBs and do-not-disrupt until
 * the NodeClaim's terminationGracePeriod ends). No replacement is launched ahead: the provisioner
 * reschedules the pods of the deleting node. `expireAfter: Never` (or unset) never expires.
 */
import { parseDuration } from '@karpenter-ts/api';
import { timeMs, type Clock } from '../../clock.js';
import { isNotFound, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';

/** Dependencies of {@link Expiration}. */
export interface ExpirationOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** Called once per NodeClaim this controller deletes (metrics: `nodeclaims_disrupted_total{reason="expired"}`). */
  readonly onExpired?: (nodeClaim: import('@karpenter-ts/api').NodeClaim) => void;
}

/** See the module comment. */
export class Expiration {
  constructor(private readonly o: ExpirationOptions) {}

  /** Reconciles the NodeClaim named `name`; requeues at its expiry time. */
  async reconcile(name: string): Promise<ReconcileResult> {
    const { client, clock } = this.o;
    const nodeClaim = await client.get('NodeClaim', { name });
    if (nodeClaim === undefined || nodeClaim.metadata.deletionTimestamp !== undefined) return done;
    const text = nodeClaim.spec.expireAfter;
    if (text === undefined) return done;
    let seconds: number | null;
    try {
      seconds = parseDuration(text);
    } catch {
      return done; // The CRD refuses such a value; nothing to act on.
    }
    if (seconds === null) return done;
    const created = timeMs(nodeClaim.metadata.creationTimestamp);
    if (created === undefined) return done;
    const expiresAt = created + seconds * 1000;
    const now = clock.now();
    if (now < expiresAt) return requeueAfter((expiresAt - now) / 1000);
    try {
      await client.delete(
        'NodeClaim',
        { name },
        { ...(nodeClaim.metadata.uid ? { uid: nodeClaim.metadata.uid } : {}) },
      );
    } catch (err) {
      if (isNotFound(err)) return done;
      throw err;
    }
    client.recordEvent({
      involved: {
        kind: 'NodeClaim',
        name,
        ...(nodeClaim.metadata.uid ? { uid: nodeClaim.metadata.uid } : {}),
      },
      type: 'Normal',
      reason: 'Disrupted',
      message: `Disrupting NodeClaim: Expired`,
    });
    this.o.onExpired?.(nodeClaim);
    return done;
  }
}
