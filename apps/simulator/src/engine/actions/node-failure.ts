/**
 * A node failure: the kubelet stops reporting, so the node lifecycle controller marks the Node
 * `Ready=Unknown` and taints it `node.kubernetes.io/unreachable` (NoSchedule and NoExecute);
 * 300 s later (the default toleration the API server gives every pod) its pods are evicted and
 * their controllers recreate them elsewhere. The machine stays, billed, until Karpenter's node
 * repair replaces it (the `nodeRepair` gate: after 10 minutes of Ready=Unknown) or forever.
 */
import type { SeededRandom } from '../../seeded-random.js';
import type { NodeSelector } from '../../scenario/types.js';
import type { ActionContext } from './context.js';
import { deletePodsOn } from './node-pods.js';

/** Seconds pods tolerate an unreachable node (the DefaultTolerationSeconds admission plugin). */
export const UNREACHABLE_TOLERATION_SECONDS = 300;
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Fails `count` Ready nodes matching `selector`, chosen with `random`. */
export async function failNodes(
  ctx: ActionContext,
  count: number,
  selector: NodeSelector,
  random: SeededRandom,
): Promise<void> {
  const { client, clock } = ctx.setup.cluster;
  const candidates = (await client.list('Node'))
    .filter((n) => {
      const labels = n.metadata?.labels ?? {};
      return (
        n.metadata?.deletionTimestamp === undefined &&
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
        (selector.instanceType === undefined ||
          labels['node.kubernetes.io/instance-type'] === selector.instanceType) &&
        (selector.zone === undefined || labels['topology.kubernetes.io/zone'] === selector.zone) &&
        (selector.nodePool === undefined || labels['karpenter.sh/nodepool'] === selector.nodePool)
      );
    })
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  if (candidates.length === 0) {
    ctx.recorder.scenario('nodeFailure', 'no Ready node to fail');
    return;
  }
  for (let k = 0; k < count && candidates.length > 0; k++) {
    const [node] = candidates.splice(random.index(candidates.length), 1);
    const name = node!.metadata?.name ?? '';
    const now = new Date(clock.now());
    const next = structuredClone(node!);
    next.spec = {
      ...(next.spec ?? {}),
      taints: [
        ...(next.spec?.taints ?? []).filter((t) => t.key !== UNREACHABLE),
        { key: UNREACHABLE, effect: 'NoSchedule', timeAdded: now },
        { key: UNREACHABLE, effect: 'NoExecute', timeAdded: now },
      ],
    };
    const updated = await client.update('Node', next);
    updated.status = {
      ...(updated.status ?? {}),
      conditions: [
        ...(updated.status?.conditions ?? []).filter((c) => c.type !== 'Ready'),
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Kubelet stopped posting node status.',
          lastTransitionTime: now,
        },
      ],
    };
    await client.updateStatus('Node', updated);
    ctx.recorder.nodeFailure(name);
    ctx.timeline.schedule(clock.now() + UNREACHABLE_TOLERATION_SECONDS * 1000, async () => {
      const lost = await deletePodsOn(ctx, name);
      if (lost > 0)
        ctx.recorder.scenario(
          'nodeFailure',
          `${lost} pod(s) evicted from unreachable node ${name}`,
        );
    });
  }
}
