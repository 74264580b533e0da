/**
 * Launch (upstream `nodeclaim/lifecycle/launch.go`, behavior 19): asks the cloud provider for a
 * machine and copies what it resolved onto the NodeClaim.
 *
 * - Runs only while `Launched` is undecided (absent or Unknown).
 * - A 1 h in-memory cache by NodeClaim UID keeps the cloud's answer, so a status write that
 *   failed or lagged does not launch twice. Across a crash (cache lost) providers are expected
 *   to make `create` idempotent per NodeClaim name (the sim, Azure and AWS providers find the
 *   instance by name or tag), and garbage collection removes anything still left.
 * - InsufficientCapacityError or NodeClassNotReadyError ⇒ event and delete the NodeClaim (its
 *   pods go back to the provisioner); CreateError ⇒ `Launched=Unknown` with the provider's reason;
 *   any other error ⇒ `Launched=Unknown(LaunchFailed)` with the message cut to 300 characters.
 *   Both retry with exponential backoff from 1 s to 1 min.
 * - On success: labels = provider labels overridden by the NodeClaim's; annotations merged with
 *   the provider's winning; providerID, imageID, capacity, allocatable copied; `Launched=True`.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import {
  isCreateError,
  isInsufficientCapacityError,
  isNodeClassNotReadyError,
} from '@karpenter-ts/cloudprovider';
import { conditionStatus, setCondition } from '../../conditions.js';
import { isNotFound } from '../../kube/client.js';
import type { LifecycleContext, StepResult } from './context.js';
import { stepDone } from './context.js';

/** How long a launch result is remembered, seconds. */
export const LAUNCH_CACHE_SECONDS = 3600;
const MAX_MESSAGE = 300;

interface CacheEntry {
  readonly launched: NodeClaim;
  readonly expires: number;
}

/** See the module comment. One instance per controller process (it holds the launch cache). */
export class Launch {
  readonly #cache = new Map<string, CacheEntry>();
  readonly #failures = new Map<string, number>();

  constructor(private readonly ctx: LifecycleContext) {}

  /** Launches `nodeClaim` (mutated in place on success or failure). */
  async reconcile(nodeClaim: NodeClaim): Promise<StepResult> {
    if (conditionStatus(nodeClaim, NodeClaimConditions.Launched) !== 'Unknown') return stepDone;
    const { clock, client } = this.ctx;
    const uid = nodeClaim.metadata.uid ?? nodeClaim.metadata.name ?? '';
    this.#expire();
    let launched = this.#cache.get(uid)?.launched;
    if (launched === undefined) {
      try {
        launched = await this.ctx.cloudProvider.create(structuredClone(nodeClaim));
      } catch (err) {
        return this.#failed(nodeClaim, uid, err);
      }
      this.#cache.set(uid, { launched, expires: clock.now() + LAUNCH_CACHE_SECONDS * 1000 });
    }
    this.#failures.delete(uid);
    nodeClaim.metadata.labels = {
      ...(launched.metadata.labels ?? {}),
      ...(nodeClaim.metadata.labels ?? {}),
    };
    nodeClaim.metadata.annotations = {
      ...(nodeClaim.metadata.annotations ?? {}),
      ...(launched.metadata.annotations ?? {}),
    };
    nodeClaim.status = {
      ...(nodeClaim.status ?? {}),
      ...(launched.status?.providerID ? { providerID: launched.status.providerID } : {}),
      ...(launched.status?.imageID ? { imageID: launched.status.imageID } : {}),
      ...(launched.status?.capacity ? { capacity: launched.status.capacity } : {}),
      ...(launched.status?.allocatable ? { allocatable: launched.status.allocatable } : {}),
    };
    setCondition(nodeClaim, { type: NodeClaimConditions.Launched, status: 'True' }, clock.now());
    client.recordEvent({
      involved: { kind: 'NodeClaim', name: nodeClaim.metadata.name ?? '' },
      type: 'Normal',
      reason: 'Launched',
      message: `Launched ${launched.status?.providerID ?? ''}`,
    });
    return stepDone;
  }

  /** Forgets the cached launch of a NodeClaim (called once it is gone). */
  forget(uid: string): void {
    this.#cache.delete(uid);
    this.#failures.delete(uid);
  }

  async #failed(nodeClaim: NodeClaim, uid: string, err: unknown): Promise<StepResult> {
    const { client, clock } = this.ctx;
    const name = nodeClaim.metadata.name ?? '';
    if (isInsufficientCapacityError(err) || isNodeClassNotReadyError(err)) {
      const reason = isInsufficientCapacityError(err)
        ? 'InsufficientCapacityError'
        : 'NodeClassNotReady';
      client.recordEvent({
        involved: { kind: 'NodeClaim', name },
        type: 'Warning',
        reason,
        message: `NodeClaim ${name} event: ${(err as Error).message}`,
      });
      try {
        await client.delete('NodeClaim', { name });
      } catch (deleteErr) {
        if (!isNotFound(deleteErr)) throw deleteErr;
      }
      this.forget(uid);
      return { deleted: true };
    }
    const attempts = (this.#failures.get(uid) ?? 0) + 1;
    this.#failures.set(uid, attempts);
    const message = (err instanceof Error ? err.message : String(err)).slice(0, MAX_MESSAGE);
    setCondition(
      nodeClaim,
      {
        type: NodeClaimConditions.Launched,
        status: 'Unknown',
        reason: isCreateError(err) ? err.reason : 'LaunchFailed',
        message,
      },
      clock.now(),
    );
    return { requeueAfter: Math.min(60, 2 ** (attempts - 1)) };
  }

  #expire(): void {
    const now = this.ctx.clock.now();
    for (const [uid, e] of this.#cache) if (e.expires <= now) this.#cache.delete(uid);
  }
}
