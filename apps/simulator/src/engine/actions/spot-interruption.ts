/**
 * A spot interruption, as the cloud and Karpenter's interruption handling play it out: the
 * cloud warns (AWS gives 2 minutes, Azure 30 seconds); the interruption controller marks the
 * offering unavailable (as upstream's AWS provider caches it) and deletes the NodeClaim, so
 * termination taints and drains the node while the provisioner finds the pods a new home; when
 * the notice is up the cloud reclaims the machine, and pods still on it die with it (their
 * controllers recreate them).
 */
import type { NodeClaim } from '@karpenter-ts/api';
import type { SeededRandom } from '../../seeded-random.js';
import type { NodeSelector } from '../../scenario/types.js';
import type { ActionContext } from './context.js';
import { deletePodsOn } from './node-pods.js';

/** Seconds from notice to reclaim per cloud. */
export const SPOT_NOTICE_SECONDS: Readonly<Record<string, number>> = {
  aws: 120,
  azure: 30,
  sim: 120,
};

/** Interrupts one running spot node matching `selector` (chosen with `random`), if there is one. */
export async function interruptSpotNode(
  ctx: ActionContext,
  selector: NodeSelector,
  noticeSeconds: number | undefined,
  random: SeededRandom,
): Promise<void> {
  const { client, cloud, clock, adapter } = ctx.setup.cluster;
  const claims = new Map(client.view('NodeClaim').map((c) => [c.metadata.name ?? '', c]));
  const candidates = cloud
    .instances()
    .filter((i) => {
      const claim = claims.get(i.nodeClaimName);
      return (
        i.capacityType === 'spot' &&
        claim !== undefined &&
        claim.metadata.deletionTimestamp === undefined &&
        (selector.instanceType === undefined || selector.instanceType === i.instanceType) &&
        (selector.zone === undefined || selector.zone === i.zone) &&
        (selector.nodePool === undefined ||
          selector.nodePool === claim.metadata.labels?.['karpenter.sh/nodepool'])
      );
    })
    .sort((a, b) => (a.nodeClaimName < b.nodeClaimName ? -1 : 1));
  if (candidates.length === 0) {
    ctx.recorder.scenario('spotInterruptions', 'no running spot node to interrupt');
    return;
  }
  const victim = candidates[random.index(candidates.length)]!;
  const claim = claims.get(victim.nodeClaimName) as NodeClaim;
  ctx.recorder.interruption(victim.nodeClaimName, victim.instanceType, victim.zone);
  await cloud.markUnavailable(
    { instanceType: victim.instanceType, zone: victim.zone, capacityType: 'spot' },
    claim.metadata.labels?.['karpenter.sh/nodepool'] ?? '',
  );
  await client.delete('NodeClaim', { name: victim.nodeClaimName });
  const notice = noticeSeconds ?? SPOT_NOTICE_SECONDS[adapter.name] ?? 120;
  ctx.timeline.schedule(clock.now() + notice * 1000, async () => {
    if (!cloud.instances().some((i) => i.providerID === victim.providerID)) return;
    await cloud.delete({
      ...claim,
      status: { ...(claim.status ?? {}), providerID: victim.providerID },
    });
    const lost = await deletePodsOn(ctx, victim.nodeClaimName);
    ctx.recorder.scenario(
      'spotInterruptions',
      `${victim.nodeClaimName} reclaimed${lost > 0 ? `; ${lost} pod(s) still on it were lost` : ''}`,
    );
    ctx.recorder.observeCloud(clock.now());
  });
}
