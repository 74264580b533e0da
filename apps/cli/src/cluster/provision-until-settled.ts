/**
 * Runs the in-memory cluster's controllers (provisioner, NodeClaim lifecycle, the kubelet and
 * kube-scheduler stand-ins) on its clock until provisioning has settled: every pod bound and
 * every NodeClaim initialized, or nothing changed (NodeClaims created, initialized, pods bound)
 * for {@link QuietSeconds} of clock time with every NodeClaim initialized, which is longer than
 * two of the provisioner's batch windows: the pods left pending are those it cannot place.
 *
 * Work is bounded by the pending backlog: the provisioner and the kube-scheduler stand-in re-solve
 * every pending pod on each pass (as upstream), so a run costs about pending pods × ticks. Past
 * {@link MaxPendingPodTicks} (the sum over ticks of the pods still pending) the run stops with a
 * CliError saying so, instead of running for hours: a backlog that large under NodePool limits
 * is what --scale or the limits should change.
 */
import { isActive, isTrue } from '@karpenter-ts/controllers';
import { CliError } from '../errors.js';
import type { RunningCluster } from './cluster-loop.js';

/** Clock seconds without a change after which provisioning counts as settled. */
export const QuietSeconds = 25;
/** Clock seconds after which the run stops anyway. */
export const MaxProvisioningSeconds = 3600;

/**
 * Pending pods summed over the loop's ticks after which a run stops (see the module comment):
 * 6 million, at the ~50 µs of CPU per pending pod and tick measured on a loaded 2-core machine
 * about 5 minutes; a 50,000-pod backlog held by a NodePool cpu limit settles within it (5.8
 * million over 119 ticks; benchmarks/README.md "Large pending backlogs" has the measured runs).
 */
export const MaxPendingPodTicks = 6_000_000;

/**
 * Most pending pods a run starts with: 100,000. Every tick re-solves the backlog, so a larger
 * one held by a limit would pass {@link MaxPendingPodTicks} after minutes of work, and one that
 * settles quickly still peaks past 2 GB; it is refused before the cluster is loaded.
 */
export const MaxPendingPods = 100_000;

/**
 * Steps the loop until settled (see the module comment); false when the clock limit came first.
 * Raises CliError once more than `maxPendingPodTicks` (default {@link MaxPendingPodTicks})
 * pending pods were summed over the ticks.
 */
export async function provisionUntilSettled(
  cluster: RunningCluster,
  maxPendingPodTicks = MaxPendingPodTicks,
): Promise<boolean> {
  const { loop, client, clock } = cluster;
  const start = clock.now();
  let last = '';
  let since = clock.now();
  let pendingPodTicks = 0;
  return loop.runUntil(async () => {
    const claims = client.view('NodeClaim');
    const pods = client.view('Pod').filter(isActive);
    const initialized = claims.filter((c) => isTrue(c, 'Initialized')).length;
    const unbound = pods.filter((p) => !p.spec?.nodeName).length;
    if (unbound === 0 && initialized === claims.length) return true;
    pendingPodTicks += unbound;
    if (pendingPodTicks > maxPendingPodTicks) {
      const seconds = Math.round((clock.now() - start) / 1000);
      throw new CliError(
        `simulation stopped: ${unbound.toLocaleString('en-US')} pods still pending after ${seconds} s of cluster time and ${claims.length.toLocaleString('en-US')} node claims, over the bound of ${maxPendingPodTicks.toLocaleString('en-US')} pending pods summed over the provisioning loop's ticks (every pass re-solves the whole pending backlog, so such a run would take hours); use a smaller --scale, or raise the NodePool limits that keep the pods pending`,
      );
    }
    const state = `${claims.length}/${initialized}/${unbound}`;
    if (state !== last) {
      last = state;
      since = clock.now();
      return false;
    }
    return initialized === claims.length && clock.now() - since >= QuietSeconds * 1000;
  }, MaxProvisioningSeconds);
}
