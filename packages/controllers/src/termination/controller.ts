/**
 * Node termination (upstream `node/termination/controller.go`): for a managed Node being deleted
 * (deletionTimestamp and our finalizer):
 * 1. delete its NodeClaim too, if that is not deleting yet;
 * 2. fast path: a Node that is not Ready and whose instance the cloud no longer has just loses
 *    its finalizer;
 * 3. taint it `karpenter.sh/disrupted:NoSchedule` (replacing taints with that key) and label it
 *    `node.kubernetes.io/exclude-from-external-load-balancers=karpenter`;
 * 4. drain (see `drain.ts`), requeueing every 1 s while pods remain; `Drained=True` on the
 *    NodeClaim only after it has been Unknown for at least 5 s, to catch pods bound just before
 *    the taint landed;
 * 5. call `cloudProvider.delete` until NodeClaimNotFoundError (`InstanceTerminating=True`,
 *    requeue 5 s);
 * 6. remove the Node's finalizer.
 *
 * Not modelled (difference from upstream): the wait for VolumeAttachments to detach, because
 * the Kubernetes client interface has no VolumeAttachment reads.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { Annotations, Finalizers, Labels, NodeClaimConditions, Taints } from '@karpenter-ts/api';
import { isNodeClaimNotFoundError, type CloudProvider } from '@karpenter-ts/cloudprovider';
import { timeMs, type Clock } from '../clock.js';
import { getCondition, setCondition } from '../conditions.js';
import { isConflict, isNotFound, type KubeClient } from '../kube/client.js';
import { done, requeueAfter, type ReconcileResult } from '../reconciler.js';
import { drain, type DrainOutcome } from './drain.js';

/** Seconds between drain passes. */
export const DRAIN_REQUEUE_SECONDS = 1;
/** Minimum seconds `Drained` stays Unknown before it may become True. */
export const MIN_DRAIN_SECONDS = 5;
/** Seconds between cloud delete calls. */
export const INSTANCE_TERMINATION_REQUEUE_SECONDS = 5;

/** Dependencies of {@link NodeTermination}. */
export interface NodeTerminationOptions {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
}

/** See the module comment. */
export class NodeTermination {
  /** The last drain pass per node name (for tests and metrics). */
  readonly lastDrain = new Map<string, DrainOutcome>();

  constructor(private readonly o: NodeTerminationOptions) {}

  /** Reconciles the Node named `name`. */
  async reconcile(name: string): Promise<ReconcileResult> {
    try {
      return await this.#reconcile(name);
    } catch (err) {
      if (isConflict(err)) return requeueAfter(1);
      throw err;
    }
  }

  async #reconcile(name: string): Promise<ReconcileResult> {
    const { client, clock, cloudProvider } = this.o;
    const node = await client.get('Node', { name });
    if (node === undefined || node.metadata?.deletionTimestamp === undefined) return done;
    if (!(node.metadata?.finalizers ?? []).includes(Finalizers.Termination)) return done;
    const providerID = node.spec?.providerID ?? '';
    const nodeClaims = providerID === '' ? [] : await client.list('NodeClaim', { providerID });

    for (const nc of nodeClaims) {
      if (nc.metadata.deletionTimestamp !== undefined) continue;
      try {
        await client.delete('NodeClaim', { name: nc.metadata.name ?? '' });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }

    if (!nodeReady(node) && providerID !== '') {
      try {
        await cloudProvider.get(providerID);
      } catch (err) {
        if (isNodeClaimNotFoundError(err)) return this.#removeFinalizer(node);
        throw err;
      }
    }

    await this.#taint(node);
    const nodeClaim = (await this.#nodeClaims(providerID))[0];
    const deadline = timeMs(
      nodeClaim?.metadata.annotations?.[Annotations.NodeClaimTerminationTimestamp],
    );
    const pods = await client.list('Pod', { nodeName: name });
    const outcome = await drain(client, pods, clock.now(), deadline);
    this.lastDrain.set(name, outcome);
    if (outcome.remaining > 0) {
      await this.#setCondition(nodeClaim, {
        type: NodeClaimConditions.Drained,
        status: 'Unknown',
        reason: 'Draining',
        message: `${outcome.remaining} pods are waiting to be evicted`,
      });
      if (outcome.blocked.length > 0) {
        client.recordEvent({
          involved: { kind: 'Node', name },
          type: 'Warning',
          reason: 'FailedDraining',
          message: `Failed to drain node, ${outcome.blocked.length} pods are waiting to be evicted`,
        });
      }
      return requeueAfter(DRAIN_REQUEUE_SECONDS);
    }
    if (nodeClaim !== undefined) {
      const drained = getCondition(nodeClaim, NodeClaimConditions.Drained);
      if (drained?.status !== 'True') {
        if (drained?.status !== 'Unknown') {
          await this.#setCondition(nodeClaim, {
            type: NodeClaimConditions.Drained,
            status: 'Unknown',
            reason: 'Draining',
          });
          return requeueAfter(MIN_DRAIN_SECONDS);
        }
        const since = timeMs(drained.lastTransitionTime) ?? clock.now();
        const wait = since + MIN_DRAIN_SECONDS * 1000 - clock.now();
        if (wait > 0) return requeueAfter(wait / 1000);
        await this.#setCondition(nodeClaim, { type: NodeClaimConditions.Drained, status: 'True' });
      }
    }

    if (providerID !== '') {
      const claim = (await this.#nodeClaims(providerID))[0] ?? nodeClaimFor(node);
      try {
        await cloudProvider.delete(claim);
        await this.#setCondition(claim.metadata.uid ? claim : undefined, {
          type: NodeClaimConditions.InstanceTerminating,
          status: 'True',
        });
        return requeueAfter(INSTANCE_TERMINATION_REQUEUE_SECONDS);
      } catch (err) {
        if (!isNodeClaimNotFoundError(err)) throw err;
      }
    }
    return this.#removeFinalizer(node);
  }

  async #nodeClaims(providerID: string): Promise<NodeClaim[]> {
    return providerID === '' ? [] : this.o.client.list('NodeClaim', { providerID });
  }

  /** Adds the disrupted taint and the load balancer exclusion label; true when it wrote. */
  async #taint(node: Node): Promise<boolean> {
    const taints = node.spec?.taints ?? [];
    const hasTaint = taints.some(
      (t) => t.key === Taints.Disrupted.key && t.effect === Taints.Disrupted.effect,
    );
    const hasLabel =
      node.metadata?.labels?.[Labels.ExcludeFromExternalLoadBalancers] === 'karpenter';
    if (hasTaint && hasLabel) return false;
    const next = structuredClone(node);
    next.spec = {
      ...(next.spec ?? {}),
      taints: [
        ...taints.filter((t) => t.key !== Taints.Disrupted.key),
        { ...Taints.Disrupted, timeAdded: new Date(this.o.clock.now()) },
      ],
    };
    (next.metadata ??= {}).labels = {
      ...(next.metadata?.labels ?? {}),
      [Labels.ExcludeFromExternalLoadBalancers]: 'karpenter',
    };
    await this.o.client.update('Node', next);
    return true;
  }

  async #setCondition(
    nodeClaim: NodeClaim | undefined,
    update: Parameters<typeof setCondition>[1],
  ): Promise<void> {
    if (nodeClaim === undefined) return;
    const latest = await this.o.client.get('NodeClaim', { name: nodeClaim.metadata.name ?? '' });
    if (latest === undefined) return;
    if (setCondition(latest, update, this.o.clock.now())) {
      await this.o.client.updateStatus('NodeClaim', latest);
    }
  }

  async #removeFinalizer(node: Node): Promise<ReconcileResult> {
    const latest = await this.o.client.get('Node', { name: node.metadata?.name ?? '' });
    if (latest === undefined) return done;
    (latest.metadata ??= {}).finalizers = (latest.metadata?.finalizers ?? []).filter(
      (f) => f !== Finalizers.Termination,
    );
    await this.o.client.update('Node', latest);
    return done;
  }
}

function nodeReady(node: Node): boolean {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

/** A minimal NodeClaim view of a Node whose NodeClaim is gone, for the cloud delete call. */
function nodeClaimFor(node: Node): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: node.metadata?.name ?? '', labels: node.metadata?.labels ?? {} },
    spec: {
      requirements: [],
      nodeClassRef: { group: '', kind: '', name: '' },
    },
    status: { providerID: node.spec?.providerID ?? '' },
  };
}
