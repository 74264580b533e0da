/**
 * A stand-in for kube-scheduler, for tests and the simulator: binds pending pods onto Ready,
 * schedulable Nodes where they fit (resources, taints with their real effects, node selectors
 * and affinity, topology), and marks the rest `PodScheduled=False/Unschedulable` — the signal
 * the provisioner waits for. Placement uses our Scheduler over the existing Nodes only (no
 * NodePools), so it follows the same fit rules as provisioning; it is not kube-scheduler's
 * scoring (it packs in node order).
 *
 * Like kube-scheduler's unschedulable queue, pods are not retried while nothing changed: a pass
 * runs only after some Pod or Node was written since the previous one (a pod created, bound,
 * updated or deleted; a node registered, tainted, Ready), other than this stand-in's own
 * `Unschedulable` marks. A pass over unchanged input would find what the last one found (no
 * bindings, the same pods unschedulable and already marked), so skipping it decides nothing
 * differently; it saves re-solving a pending backlog on every tick of a large simulation.
 */
import type { Pod } from '@karpenter-ts/api';
import { PodDataCache, Scheduler, type ExistingNodeInput } from '@karpenter-ts/scheduling';
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
  /** Whether a Pod or Node was written since the last pass (true until the first one). */
  #changed = true;
  /** Set while this stand-in writes its own `Unschedulable` marks (not a change to react to). */
  #marking = false;
  /** Whether the watches are registered (they live as long as the client, so none is removed). */
  #watching = false;
  #lastUnschedulable: readonly string[] = [];
  /** Pod data shared by every pass's Scheduler (the view hands out the same unchanged pods). */
  readonly #podData = new PodDataCache();

  constructor(
    private readonly client: MemoryKubeClient,
    private readonly solver: 'wasm' | 'ts' = 'ts',
  ) {}

  /**
   * One pass: binds what fits and marks the rest Unschedulable; returns nothing bound and the
   * last pass's unschedulable pods when no Pod or Node changed since it (see the module comment).
   */
  async reconcile(): Promise<BindResult> {
    if (!this.#watching) {
      this.#watching = true;
      this.client.watch('Pod', () => {
        if (!this.#marking) this.#changed = true;
      });
      this.client.watch('Node', () => {
        this.#changed = true;
      });
    }
    if (!this.#changed) return { bound: new Map(), unschedulable: this.#lastUnschedulable };
    this.#changed = false;
    const pods = this.client.view('Pod');
    const pending = pods.filter((p) => !p.spec?.nodeName && isActive(p) && !isDaemonSetPod(p));
    const bound = new Map<string, string>();
    if (pending.length === 0) return { bound, unschedulable: (this.#lastUnschedulable = []) };
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
      podDataCache: this.#podData,
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
      this.#marking = true;
      try {
        await this.client.updateStatus('Pod', next);
      } finally {
        this.#marking = false;
      }
    }
    this.#lastUnschedulable = unschedulable;
    return { bound, unschedulable };
  }
}
