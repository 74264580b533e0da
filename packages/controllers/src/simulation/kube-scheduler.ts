/**
 * A stand-in for kube-scheduler, for tests and the simulator: binds pending pods onto Ready,
 * schedulable Nodes where they fit (resources, taints with their real effects, node selectors
 * and affinity, topology), and marks the rest `PodScheduled=False/Unschedulable` — the signal
 * the provisioner waits for. Placement uses our Scheduler over the existing Nodes only (no
 * NodePools), so it follows the same fit rules as provisioning; it is not kube-scheduler's
 * scoring (it packs in node order).
 */
import type { Pod } from '@karpenter-ts/api';
import { Scheduler, type ExistingNodeInput } from '@karpenter-ts/scheduling';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { isActive, isDaemonSetPod } from '../pods.js';
import { resourceListFromQuantities } from '@karpenter-ts/scheduling';

/** What one pass did. */
export interface BindResult {
  /** `namespace/name` → node name. */
  readonly bound: ReadonlyMap<string, string>;
  /** Pods left pending (now marked Unschedulable). */
  readonly unschedulable: readonly string[];
}

/** See the module comment. */
export class SimKubeScheduler {
  constructor(
    private readonly client: MemoryKubeClient,
    private readonly solver: 'wasm' | 'ts' = 'ts',
  ) {}

  async reconcile(): Promise<BindResult> {
    const pods = this.client.view('Pod');
    const pending = pods.filter((p) => !p.spec?.nodeName && isActive(p) && !isDaemonSetPod(p));
    const bound = new Map<string, string>();
    if (pending.length === 0) return { bound, unschedulable: [] };
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) {
      const n = p.spec?.nodeName;
      if (!n || !isActive(p)) continue;
      let onNode = byNode.get(n);
      if (onNode === undefined) byNode.set(n, (onNode = []));
      onNode.push(p);
    }
    const nodes: ExistingNodeInput[] = this.client
      .view('Node')
      .filter(
        (n) =>
          n.metadata?.deletionTimestamp === undefined &&
          !n.spec?.unschedulable &&
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      )
      .map((n) => ({
        name: n.metadata?.name ?? '',
        labels: n.metadata?.labels ?? {},
        // Only hard effects keep pods off; PreferNoSchedule is a preference.
        taints: (n.spec?.taints ?? []).filter((t) => t.effect !== 'PreferNoSchedule'),
        allocatable: resourceListFromQuantities(n.status?.allocatable ?? {}),
        pods: byNode.get(n.metadata?.name ?? '') ?? [],
      }));
    const results = new Scheduler({
      nodePools: [],
      instanceTypes: new Map(),
      existingNodes: nodes,
      solver: this.solver,
    }).solve(pending);
    for (const placement of results.existingNodes) {
      for (const pod of placement.pods) {
        const key = {
          name: pod.metadata?.name ?? '',
          namespace: pod.metadata?.namespace ?? 'default',
        };
        await this.client.bind(key, placement.name);
        bound.set(`${key.namespace}/${key.name}`, placement.name);
      }
    }
    const unschedulable: string[] = [];
    for (const pod of results.podErrors.keys()) {
      const key = `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
      unschedulable.push(key);
      const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') continue;
      const next = structuredClone(pod);
      next.status = {
        ...(next.status ?? {}),
        conditions: [
          ...(next.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable' },
        ],
      };
      await this.client.updateStatus('Pod', next);
    }
    return { bound, unschedulable };
  }
}
