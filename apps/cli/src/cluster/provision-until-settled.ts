/**
 * Runs the in-memory cluster's controllers (provisioner, NodeClaim lifecycle, the kubelet and
 * kube-scheduler stand-ins) on its clock until provisioning has settled: every pod bound and
 * every NodeClaim initialized, or nothing changed (NodeClaims created, initialized, pods bound)
 * for {@link QuietSeconds} of clock time with every NodeClaim initialized, which is longer than
 * two of the provisioner's batch windows: the pods left pending are those it cannot place.
 */
import { isActive, isTrue } from '@karpenter-ts/controllers';
import type { RunningCluster } from './cluster-loop.js';

/** Clock seconds without a change after which provisioning counts as settled. */
export const QuietSeconds = 25;
/** Clock seconds after which the run stops anyway. */
export const MaxProvisioningSeconds = 3600;

/** Steps the loop until settled (see the module comment); false when the limit came first. */
export async function provisionUntilSettled(cluster: RunningCluster): Promise<boolean> {
  const { loop, client, clock } = cluster;
  let last = '';
  let since = clock.now();
  return loop.runUntil(async () => {
    const claims = client.view('NodeClaim');
    const pods = client.view('Pod').filter(isActive);
    const initialized = claims.filter((c) => isTrue(c, 'Initialized')).length;
    const unbound = pods.filter((p) => !p.spec?.nodeName).length;
    if (unbound === 0 && initialized === claims.length) return true;
    const state = `${claims.length}/${initialized}/${unbound}`;
    if (state !== last) {
      last = state;
      since = clock.now();
      return false;
    }
    return initialized === claims.length && clock.now() - since >= QuietSeconds * 1000;
  }, MaxProvisioningSeconds);
}
