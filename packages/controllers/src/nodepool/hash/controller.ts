/**
 * The NodePool hash controller (upstream `nodepool/hash/controller.go`):
 * writes `karpenter.sh/nodepool-hash` (see `nodePoolHash`) and `karpenter.sh/nodepool-hash-version`
 * on the NodePool. When the pool's version annotation is not ours (a pool made by upstream
 * Karpenter, or by an older hash algorithm), its NodeClaims are re-baselined first: each gets our
 * version and, unless it is already Drifted, the pool's current hash, so a version change never
 * reads as drift.
 */
import {
  Annotations,
  Labels,
  NodeClaimConditions,
  nodePoolHash,
  NodePoolHashVersion,
} from '@karpenter-ts/api';
import { getCondition } from '../../conditions.js';
import { isConflict, isNotFound, type KubeClient } from '../../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../../reconciler.js';

/** Dependencies of {@link NodePoolHash}. */
export interface NodePoolHashOptions {
  readonly client: KubeClient;
}

/** See the module comment. */
export class NodePoolHash {
  constructor(private readonly o: NodePoolHashOptions) {}

  /** Reconciles the NodePool named `name`. */
  async reconcile(name: string): Promise<ReconcileResult> {
    try {
      return await this.#reconcile(name);
    } catch (err) {
      if (isConflict(err)) return requeueAfter(1);
      if (isNotFound(err)) return done;
      throw err;
    }
  }

  async #reconcile(name: string): Promise<ReconcileResult> {
    const { client } = this.o;
    const pool = await client.get('NodePool', { name });
    if (pool === undefined || pool.metadata.deletionTimestamp !== undefined) return done;
    const hash = nodePoolHash(pool);
    const annotations = pool.metadata.annotations ?? {};
    if (annotations[Annotations.NodePoolHashVersion] !== NodePoolHashVersion) {
      for (const nc of await client.list('NodeClaim', { labels: { [Labels.NodePool]: name } })) {
        const ncAnnotations = nc.metadata.annotations ?? {};
        if (ncAnnotations[Annotations.NodePoolHashVersion] === NodePoolHashVersion) continue;
        const drifted = getCondition(nc, NodeClaimConditions.Drifted) !== undefined;
        await client.patch(
          'NodeClaim',
          { name: nc.metadata.name ?? '' },
          {
            metadata: {
              annotations: {
                [Annotations.NodePoolHashVersion]: NodePoolHashVersion,
                ...(drifted ? {} : { [Annotations.NodePoolHash]: hash }),
              },
            },
          },
        );
      }
    }
    if (
      annotations[Annotations.NodePoolHash] !== hash ||
      annotations[Annotations.NodePoolHashVersion] !== NodePoolHashVersion
    ) {
      await client.patch(
        'NodePool',
        { name },
        {
          metadata: {
            annotations: {
              [Annotations.NodePoolHash]: hash,
              [Annotations.NodePoolHashVersion]: NodePoolHashVersion,
            },
          },
        },
        pool.metadata.resourceVersion ? { resourceVersion: pool.metadata.resourceVersion } : {},
      );
    }
    return done;
  }
}
