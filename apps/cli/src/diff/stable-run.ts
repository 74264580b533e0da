/**
 * One side of `diff`: a cluster snapshot loaded into the in-memory cluster and run by the
 * controllers until stable (`disrupt --until-stable`: pending pods provisioned, drifted nodes
 * replaced, consolidation done), summarized as `diff` compares it: the nodes and USD/hour at the
 * end, the commands taken, the pods left pending, the pods that moved, and the nodes a budget
 * holds.
 */
import { isActive, isDaemonSetPod, podKey } from '@karpenter-ts/controllers';
import type { Cloud } from '../clouds/cloud.js';
import { startCluster, type ClusterOptions } from '../cluster/cluster-loop.js';
import { CommandLog, runUntilStable, type StartedCommand } from '../disrupt/until-stable.js';
import type { ManifestDocument } from '../manifests/document.js';
import { readSnapshot } from '../snapshot/read-snapshot.js';

/** What one run ended with. Prices in USD/hour. */
export interface RunSummary {
  readonly stable: boolean;
  /** Managed nodes at the end. */
  readonly nodes: number;
  readonly pricePerHour: number;
  /** Instance types of the managed nodes at the end, most first. */
  readonly instanceTypes: readonly { readonly name: string; readonly count: number }[];
  readonly commands: readonly StartedCommand[];
  /** Pods left pending at the end (`namespace/name`). */
  readonly pendingPods: readonly string[];
  /**
   * Pods of the snapshot that do not run where they ran at the end (`namespace/name`): moved, or
   * evicted and replaced by a new pod of their ReplicaSet elsewhere.
   */
  readonly movedPods: readonly string[];
  /** Nodes at the end that a budget keeps from a disruption, with the verdict. */
  readonly blocked: readonly { readonly node: string; readonly reason: string }[];
  /** What reading the input noted (NodePools left out or retargeted, defaults used, ...). */
  readonly notes: readonly string[];
}

/** Runs `documents` until stable on `cloud` from `options.now` and summarizes the end. */
export async function stableRun(
  documents: readonly ManifestDocument[],
  cloud: Cloud,
  options: Omit<ClusterOptions, 'disruptionObserver' | 'disruption'>,
): Promise<RunSummary> {
  const read = readSnapshot(documents, cloud, {
    now: options.now,
    unknownKinds: 'error',
    clusterSnapshot: true,
    ...(options.nodeOverlay === true ? { nodeOverlay: true } : {}),
  });
  const log = new CommandLog();
  const cluster = await startCluster(read, cloud, { ...options, disruptionObserver: log.observer });
  try {
    const result = await runUntilStable(cluster, read, cloud, log);
    const started = new Map(
      read.snapshot.pods.map((p) => [podKey(p.object), p.object.spec?.nodeName]),
    );
    const pods = (await cluster.client.list('Pod')).filter(
      (p) => isActive(p) && !isDaemonSetPod(p),
    );
    const ended = new Map(pods.map((p) => [podKey(p), p.spec?.nodeName]));
    const managed = result.final.nodes.filter((n) => n.status !== 'unmanaged');
    const counts = new Map<string, number>();
    for (const n of managed)
      counts.set(n.instanceType ?? '?', (counts.get(n.instanceType ?? '?') ?? 0) + 1);
    return {
      stable: result.stable,
      nodes: managed.length,
      pricePerHour: result.costAfter,
      instanceTypes: [...counts]
        .map(([name, count]) => ({ name, count }))
        .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)),
      commands: result.commands,
      pendingPods: pods
        .filter((p) => !p.spec?.nodeName)
        .map(podKey)
        .sort(),
      movedPods: [...started]
        .filter(([key, before]) => before !== undefined && ended.get(key) !== before)
        .map(([key]) => key)
        .sort(),
      blocked: result.final.nodes
        .filter((n) => n.reason.includes('budget for'))
        .map((n) => ({ node: n.name, reason: n.reason })),
      notes: read.notes,
    };
  } finally {
    cluster.loop.stop();
  }
}
