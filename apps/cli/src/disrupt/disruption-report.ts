/**
 * What `disrupt` reports about one disruption pass over a cluster: the commands, every node with
 * its verdict, the budgets per NodePool and reason, and what the snapshot reader ignored.
 */
import type { DisruptionPlan, MethodName } from '@karpenter-ts/controllers';
import { isProvisionable } from '@karpenter-ts/controllers';
import type { Cloud } from '../clouds/cloud.js';
import type { RunningCluster } from '../cluster/cluster-loop.js';
import { nodeOverlayNotes } from '../cluster/overlay-notes.js';
import type { IgnoredObject, SnapshotRead, WorkloadPending } from '../snapshot/read-snapshot.js';
import { budgetReports, type BudgetReport } from './budgets-report.js';
import { commandReport, type CommandReport } from './commands-report.js';
import { nodeReports, rfc3339, type NodeReport } from './nodes-report.js';

/** See the module comment. Prices in USD/hour. */
export interface DisruptionReport {
  /** The time of the pass, RFC 3339. */
  readonly now: string;
  readonly cloud: string;
  readonly region: string;
  /** The method whose commands these are; undefined when no method found one. */
  readonly method?: MethodName;
  readonly commands: readonly CommandReport[];
  readonly nodes: readonly NodeReport[];
  readonly budgets: readonly BudgetReport[];
  /** Pods waiting for a node (the disruption simulations place them too). */
  readonly pendingPods: number;
  /** Workloads whose pods the snapshot lacks some of, and how many are pending. */
  readonly workloads: readonly WorkloadPending[];
  readonly ignored: readonly IgnoredObject[];
  readonly notes: readonly string[];
}

/** Builds the report of `plan`, computed on `cluster` at its clock's time. */
export async function disruptionReport(
  plan: DisruptionPlan,
  cluster: RunningCluster,
  read: SnapshotRead,
  cloud: Cloud,
): Promise<DisruptionReport> {
  const nowMs = cluster.clock.now();
  const nodes = cluster.loop.cluster.nodes();
  const pools = await cluster.client.list('NodePool');
  const pending = (await cluster.client.list('Pod')).filter(isProvisionable).length;
  return {
    now: rfc3339(nowMs),
    cloud: cloud.name,
    region: cloud.region,
    ...(plan.method !== undefined ? { method: plan.method } : {}),
    commands: plan.commands.map((c) => commandReport(c, cloud)),
    nodes: nodeReports(nodes, plan, nowMs, cluster.cloud.price),
    budgets: budgetReports(nodes, pools, nowMs),
    pendingPods: pending,
    workloads: read.workloads.filter((w) => w.pending > 0),
    ignored: read.ignored,
    notes: [...read.notes, ...cluster.loaded.notes, ...nodeOverlayNotes(cluster)],
  };
}
