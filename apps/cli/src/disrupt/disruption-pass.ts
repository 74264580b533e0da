/**
 * One disruption pass of the controllers over the loaded cluster at its clock's time, without
 * acting (see the controllers' planDisruptionNow), and its report.
 */
import { planDisruptionNow } from '@karpenter-ts/controllers';
import type { Cloud } from '../clouds/cloud.js';
import type { RunningCluster } from '../cluster/cluster-loop.js';
import type { SnapshotRead } from '../snapshot/read-snapshot.js';
import { disruptionReport, type DisruptionReport } from './disruption-report.js';

/** Runs the pass and reports it. */
export async function runDisruptionPass(
  cluster: RunningCluster,
  read: SnapshotRead,
  cloud: Cloud,
): Promise<DisruptionReport> {
  const plan = await planDisruptionNow(cluster.loop, cluster.client);
  return disruptionReport(plan, cluster, read, cloud);
}
