/**
 * Registration (upstream `nodeclaim/lifecycle/registration.go`, behavior 19): once launched,
 * finds the Node the kubelet registered (by provider ID) and makes it Karpenter's: finalizer,
 * NodeClaim owner reference, the NodeClaim's taints and startup taints (unless the node opts out
 * with `karpenter.sh/do-not-sync-taints=true`), labels and annotations; then removes the
 * `karpenter.sh/unregistered` taint, labels it `karpenter.sh/registered=true`, and sets
 * `Registered=True` and `status.nodeName`.
 *
 * No Node yet ⇒ `Registered=Unknown(NodeNotFound)`; several ⇒ `Registered=False(MultipleNodesFound)`.
 * Provider registration hooks are not modelled (none of our providers has one).
 */
import type { Node, NodeClaim, Taint } from '@karpenter-ts/api';
import { Finalizers, KarpenterV1, Labels, NodeClaimConditions, Taints } from '@karpenter-ts/api';
import { isTrue, setCondition } from '../../conditions.js';
import { sameTaint } from '../../state/state-node.js';
import type { LifecycleContext, StepResult } from './context.js';
import { stepDone } from './context.js';

/** See the module comment. */
export class Registration {
  constructor(private readonly ctx: LifecycleContext) {}

  /** Registers `nodeClaim` (status mutated in place); writes the Node itself. */
  async reconcile(nodeClaim: NodeClaim): Promise<StepResult> {
    if (!isTrue(nodeClaim, NodeClaimConditions.Launched)) return stepDone;
    if (isTrue(nodeClaim, NodeClaimConditions.Registered)) return stepDone;
    const { client, clock } = this.ctx;
    const providerID = nodeClaim.status?.providerID ?? '';
    const nodes = providerID === '' ? [] : await client.list('Node', { providerID });
    if (nodes.length === 0) {
      setCondition(
        nodeClaim,
        {
          type: NodeClaimConditions.Registered,
          status: 'Unknown',
          reason: 'NodeNotFound',
          message: 'Node not registered with cluster',
        },
        clock.now(),
      );
      return stepDone;
    }
    if (nodes.length > 1) {
      setCondition(
        nodeClaim,
        {
          type: NodeClaimConditions.Registered,
          status: 'False',
          reason: 'MultipleNodesFound',
          message: `Invariant violated, matched multiple nodes: ${nodes.map((n) => n.metadata?.name).join(', ')}`,
        },
        clock.now(),
      );
      return stepDone;
    }
    const node = nodes[0] as Node;
    const labels = node.metadata?.labels ?? {};
    const taints = node.spec?.taints ?? [];
    if (
      labels[Labels.Registered] !== 'true' &&
      !taints.some((t) => sameTaint(t, Taints.Unregistered))
    ) {
      client.recordEvent({
        involved: { kind: 'Node', name: node.metadata?.name ?? '' },
        type: 'Warning',
        reason: 'UnregisteredTaintMissing',
        message: `Missing ${Taints.Unregistered.key} taint which prevents registration related race conditions on Karpenter-managed nodes`,
      });
    }
    await client.update('Node', syncNode(node, nodeClaim));
    nodeClaim.status = { ...(nodeClaim.status ?? {}), nodeName: node.metadata?.name ?? '' };
    setCondition(nodeClaim, { type: NodeClaimConditions.Registered, status: 'True' }, clock.now());
    return stepDone;
  }
}

/** The Node with the NodeClaim's finalizer, owner, taints, labels and annotations, registered. */
export function syncNode(node: Node, nodeClaim: NodeClaim): Node {
  const next = structuredClone(node);
  const meta = (next.metadata ??= {});
  if (!(meta.finalizers ?? []).includes(Finalizers.Termination)) {
    meta.finalizers = [...(meta.finalizers ?? []), Finalizers.Termination];
  }
  const uid = nodeClaim.metadata.uid ?? '';
  if (!(meta.ownerReferences ?? []).some((o) => o.kind === 'NodeClaim' && o.uid === uid)) {
    meta.ownerReferences = [
      ...(meta.ownerReferences ?? []),
      {
        apiVersion: KarpenterV1,
        kind: 'NodeClaim',
        name: nodeClaim.metadata.name ?? '',
        uid,
        blockOwnerDeletion: true,
      },
    ];
  }
  let taints: Taint[] = [...(next.spec?.taints ?? [])];
  if (meta.labels?.[Labels.DoNotSyncTaints] !== 'true') {
    for (const t of [...(nodeClaim.spec.taints ?? []), ...(nodeClaim.spec.startupTaints ?? [])]) {
      if (!taints.some((x) => x.key === t.key && x.effect === t.effect)) taints.push(t);
    }
  }
  taints = taints.filter((t) => !sameTaint(t, Taints.Unregistered));
  next.spec = { ...(next.spec ?? {}), taints };
  meta.labels = {
    ...(meta.labels ?? {}),
    ...(nodeClaim.metadata.labels ?? {}),
    [Labels.Registered]: 'true',
  };
  meta.annotations = { ...(meta.annotations ?? {}), ...(nodeClaim.metadata?.annotations ?? {}) };
  return next;
}
