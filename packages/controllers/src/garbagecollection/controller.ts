/**
 * Garbage collection (upstream `nodeclaim/garbagecollection` plus the
 * providers' instance GC), a singleton that runs every 2 minutes:
 * - a launched, registered, non-deleting NodeClaim whose instance is gone from
 *   `cloudProvider.list()` is deleted, unless its Node is still Ready (reason
 *   `garbage_collected`) — upstream's core GC, always on;
 * - unless `collectOrphanInstances` is false, a cloud instance that no NodeClaim owns — by
 *   provider ID, or by name for a NodeClaim whose launch result was never written — is deleted
 *   once it is older than the grace period (default 30 s, as the AWS provider waits), so a
 *   launch still being recorded is never collected. Age is measured from the instance's creation
 *   time as the cloud reports it (`metadata.creationTimestamp` of `cloudProvider.list()`, as
 *   upstream's AWS GC reads the instance's launch time), which survives a restart of the
 *   controller: an orphan older than the grace goes in the first pass after a restart. Only an
 *   instance the provider reports no creation time for is measured from when this process first
 *   saw it orphaned (which a restart resets). Upstream leaves this to each provider's own GC; we
 *   do it here for providers without one (the sim and AWS), and a provider with its own (Azure)
 *   turns it off so orphan instances have a single owner.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { isNodeClaimNotFoundError, type CloudProvider } from '@karpenter-ts/cloudprovider';
import type { Clock } from '../clock.js';
import { isTrue } from '../conditions.js';
import { isNotFound, type KubeClient } from '../kube/client.js';
import { requeueAfter, type ReconcileResult } from '../reconciler.js';

/** Seconds between garbage collection passes. */
export const GARBAGE_COLLECTION_INTERVAL_SECONDS = 120;

/** Options of {@link GarbageCollection}. */
export interface GarbageCollectionOptions {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
  /**
   * Seconds since its creation (else since first seen orphaned, see the module comment) before
   * an orphaned instance is deleted; default 30.
   */
  readonly orphanGraceSeconds?: number;
  /**
   * Whether cloud instances no NodeClaim owns are deleted here; default true (the sim and AWS
   * providers have no instance GC of their own). A provider whose own GC collects them passes
   * false (Azure), leaving this pass upstream's: NodeClaims whose instance is gone.
   */
  readonly collectOrphanInstances?: boolean;
}

/** What one pass removed. */
export interface GarbageCollectionResult extends ReconcileResult {
  /** Provider IDs of orphaned instances deleted from the cloud. */
  readonly instancesDeleted: readonly string[];
  /** Names of NodeClaims deleted because their instance is gone. */
  readonly nodeClaimsDeleted: readonly string[];
}

/** See the module comment. */
export class GarbageCollection {
  /**
   * First time each orphan without a reported creation time was seen, by provider ID (clock
   * milliseconds).
   */
  readonly #orphanSince = new Map<string, number>();
  readonly #grace: number;
  /** Whether this pass deletes orphan instances (`collectOrphanInstances`, default true). */
  readonly collectsOrphanInstances: boolean;

  constructor(private readonly o: GarbageCollectionOptions) {
    this.#grace = o.orphanGraceSeconds ?? 30;
    this.collectsOrphanInstances = o.collectOrphanInstances ?? true;
  }

  /**
   * One pass (see the module comment). Requeues after 2 min, or sooner when an orphan waits for
   * its grace period: once the first of them comes of age (at least 1 s). Raises the cloud's or
   * the API's error of a failed list or delete (a delete that finds the instance gone is fine).
   */
  async reconcile(): Promise<GarbageCollectionResult> {
    const { client, clock, cloudProvider } = this.o;
    // Read the cloud before the API: an instance launched after the NodeClaim list would
    // otherwise look orphaned.
    const instances = await cloudProvider.list();
    const nodeClaims = await client.list('NodeClaim');
    const now = clock.now();
    const byProviderID = new Map<string, NodeClaim>();
    const unlaunchedNames = new Set<string>();
    for (const nc of nodeClaims) {
      const id = nc.status?.providerID;
      if (id) byProviderID.set(id, nc);
      else unlaunchedNames.add(nc.metadata.name ?? '');
    }

    const instancesDeleted: string[] = [];
    const orphans = new Set<string>();
    /** Milliseconds until the first waiting orphan comes of age. */
    let nextDue = Number.POSITIVE_INFINITY;
    for (const instance of this.collectsOrphanInstances ? instances : []) {
      const id = instance.status?.providerID ?? '';
      if (id === '' || byProviderID.has(id) || unlaunchedNames.has(instance.metadata.name ?? '')) {
        continue;
      }
      orphans.add(id);
      let since = timestampMs(instance.metadata.creationTimestamp);
      if (since === undefined) {
        since = this.#orphanSince.get(id) ?? now;
        this.#orphanSince.set(id, since);
      }
      const due = since + this.#grace * 1000 - now;
      if (due > 0) {
        nextDue = Math.min(nextDue, due);
        continue;
      }
      try {
        await cloudProvider.delete(instance);
      } catch (err) {
        if (!isNodeClaimNotFoundError(err)) throw err;
      }
      instancesDeleted.push(id);
      client.recordEvent({
        involved: { kind: 'NodeClaim', name: instance.metadata.name ?? id },
        type: 'Normal',
        reason: 'GarbageCollected',
        message: `Deleted instance ${id}: no NodeClaim owns it`,
      });
    }
    for (const id of [...this.#orphanSince.keys()])
      if (!orphans.has(id)) this.#orphanSince.delete(id);
    for (const id of instancesDeleted) this.#orphanSince.delete(id);

    const live = new Set(instances.map((i) => i.status?.providerID ?? ''));
    const nodeClaimsDeleted: string[] = [];
    for (const nc of nodeClaims) {
      const id = nc.status?.providerID;
      if (!id || live.has(id) || nc.metadata.deletionTimestamp !== undefined) continue;
      if (!isTrue(nc, NodeClaimConditions.Registered)) continue;
      const node = nc.status?.nodeName
        ? await client.get('Node', { name: nc.status.nodeName })
        : undefined;
      if (node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        continue;
      try {
        await client.delete('NodeClaim', { name: nc.metadata.name ?? '' });
        nodeClaimsDeleted.push(nc.metadata.name ?? '');
        client.recordEvent({
          involved: { kind: 'NodeClaim', name: nc.metadata.name ?? '' },
          type: 'Normal',
          reason: 'GarbageCollected',
          message: `Deleting NodeClaim: instance ${id} no longer exists (garbage_collected)`,
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const next = Math.min(
      GARBAGE_COLLECTION_INTERVAL_SECONDS,
      Math.max(1, Math.ceil(nextDue / 1000)),
    );
    return { ...requeueAfter(next), instancesDeleted, nodeClaimsDeleted };
  }
}

/** Milliseconds since the epoch of a timestamp (a `Date` or an RFC 3339 string), if valid. */
function timestampMs(ts: Date | string | undefined | null): number | undefined {
  if (ts === undefined || ts === null) return undefined;
  const ms = new Date(ts).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}
