/**
 * In-memory cluster state (upstream `state/cluster.go`):
 * Nodes and NodeClaims merged by provider ID into StateNodes, the pods bound to each node, the
 * DaemonSets (for daemonset overhead), nominations, marked-for-deletion, and the "synced" gate
 * the provisioner waits on. It is fed by watch events (see `informer.ts`) and by the
 * provisioner, which records the NodeClaims it creates at once so the next batch sees them
 * before the watch does.
 */
import type { DaemonSet, LimitRange, Node, NodeClaim, Pod } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { addResources, type ResourceList } from '@karpenter-ts/scheduling';
import { timeMs, type Clock } from '../clock.js';
import type { KubeClient } from '../kube/client.js';
import { admitPodResources } from '../limit-ranges.js';
import { isDaemonSetPod, isTerminal, podKey } from '../pods.js';
import { StorageState } from './storage.js';
import { StateNode } from './state-node.js';

interface Entry {
  node?: Node;
  nodeClaim?: NodeClaim;
}

/** See the module comment. Not safe to share between clusters; one instance per controller process. */
export class Cluster {
  readonly #clock: Clock;
  /** By provider ID (or `node:<name>` for a Node without one). */
  readonly #entries = new Map<string, Entry>();
  readonly #nodeNameToKey = new Map<string, string>();
  readonly #nodeClaimNameToKey = new Map<string, string>();
  /** NodeClaims not launched yet (no provider ID), by name. */
  readonly #unlaunched = new Map<string, NodeClaim>();
  readonly #pods = new Map<string, Pod>();
  readonly #podsByNode = new Map<string, Set<string>>();
  readonly #daemonSets = new Map<string, DaemonSet>();
  /** LimitRanges by `namespace/name`: their defaults fill DaemonSet pods built from templates. */
  readonly #limitRanges = new Map<string, LimitRange>();
  /** PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes (volume topology). */
  readonly storage = new StorageState();
  readonly #nominatedUntil = new Map<string, number>();
  readonly #markedForDeletion = new Set<string>();
  #hasSynced = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  // ---- writers (watch events) -------------------------------------------------------------

  /** Adds or updates a Node. */
  updateNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const key = node.spec?.providerID ? node.spec.providerID : `node:${name}`;
    const previous = this.#nodeNameToKey.get(name);
    if (previous !== undefined && previous !== key) this.#detachNode(name);
    const entry = this.#entry(key);
    entry.node = node;
    this.#nodeNameToKey.set(name, key);
  }

  /** Removes a Node (by name); its NodeClaim, if any, stays tracked. */
  deleteNode(name: string): void {
    this.#detachNode(name);
  }

  /** Adds or updates a NodeClaim; before launch it is tracked without a StateNode. */
  updateNodeClaim(nodeClaim: NodeClaim): void {
    const name = nodeClaim.metadata.name ?? '';
    const providerID = nodeClaim.status?.providerID;
    if (!providerID) {
      this.#unlaunched.set(name, nodeClaim);
      return;
    }
    this.#unlaunched.delete(name);
    const previous = this.#nodeClaimNameToKey.get(name);
    if (previous !== undefined && previous !== providerID) this.#detachNodeClaim(name);
    this.#entry(providerID).nodeClaim = nodeClaim;
    this.#nodeClaimNameToKey.set(name, providerID);
  }

  /** Removes a NodeClaim (by name). */
  deleteNodeClaim(name: string): void {
    this.#unlaunched.delete(name);
    this.#detachNodeClaim(name);
  }

  /** Adds or updates a pod; bound, non-terminal pods count against their node. */
  updatePod(pod: Pod): void {
    const key = podKey(pod);
    this.deletePod(key);
    this.#pods.set(key, pod);
    const nodeName = pod.spec?.nodeName;
    if (nodeName && !isTerminal(pod)) {
      let set = this.#podsByNode.get(nodeName);
      if (set === undefined) {
        set = new Set();
        this.#podsByNode.set(nodeName, set);
      }
      set.add(key);
    }
  }

  /** Removes a pod by `namespace/name`. */
  deletePod(key: string): void {
    const old = this.#pods.get(key);
    if (old === undefined) return;
    this.#pods.delete(key);
    const nodeName = old.spec?.nodeName;
    if (nodeName) this.#podsByNode.get(nodeName)?.delete(key);
  }

  /** Adds or updates a DaemonSet. */
  updateDaemonSet(daemonSet: DaemonSet): void {
    this.#daemonSets.set(
      `${daemonSet.metadata?.namespace ?? 'default'}/${daemonSet.metadata?.name}`,
      daemonSet,
    );
  }

  /** Adds or updates a LimitRange. */
  updateLimitRange(limitRange: LimitRange): void {
    this.#limitRanges.set(
      `${limitRange.metadata?.namespace ?? 'default'}/${limitRange.metadata?.name}`,
      limitRange,
    );
  }

  /** Removes a LimitRange by `namespace/name`. */
  deleteLimitRange(key: string): void {
    this.#limitRanges.delete(key);
  }

  /** Removes a DaemonSet by `namespace/name`. */
  deleteDaemonSet(key: string): void {
    this.#daemonSets.delete(key);
  }

  // ---- nominations and deletion marks -----------------------------------------------------

  /**
   * Nominates a node (by name) for pending pods for `seconds` (upstream: max(2 × batch max
   * duration, 10 s)); a nominated node is not disrupted.
   */
  nominate(nodeName: string, seconds: number): void {
    const key = this.#keyOfName(nodeName);
    if (key !== undefined) this.#nominatedUntil.set(key, this.#clock.now() + seconds * 1000);
  }

  /** Marks nodes (by name) for deletion: the scheduler stops placing pods there and reschedules theirs. */
  markForDeletion(...nodeNames: string[]): void {
    for (const n of nodeNames) {
      const key = this.#keyOfName(n);
      if (key !== undefined) this.#markedForDeletion.add(key);
    }
  }

  /** Undoes {@link markForDeletion} (e.g. after a disruption command is rolled back). */
  unmarkForDeletion(...nodeNames: string[]): void {
    for (const n of nodeNames) {
      const key = this.#keyOfName(n);
      if (key !== undefined) this.#markedForDeletion.delete(key);
    }
  }

  // ---- readers ----------------------------------------------------------------------------

  /** Snapshots of every launched or registered machine, ordered by name. */
  nodes(): StateNode[] {
    const out: StateNode[] = [];
    for (const [key, entry] of this.#entries) {
      const podNames = entry.node
        ? (this.#podsByNode.get(entry.node.metadata?.name ?? '') ?? new Set<string>())
        : new Set<string>();
      const pods = [...podNames].map((k) => this.#pods.get(k) as Pod);
      out.push(
        new StateNode(
          entry.node,
          entry.nodeClaim,
          pods,
          this.#markedForDeletion.has(key),
          this.#nominatedUntil.get(key) ?? 0,
        ),
      );
    }
    return out.sort((a, b) => (a.name() < b.name() ? -1 : a.name() > b.name() ? 1 : 0));
  }

  /** The StateNode for a node or NodeClaim name, or undefined. */
  node(name: string): StateNode | undefined {
    const key = this.#keyOfName(name);
    if (key === undefined) return undefined;
    return this.nodes().find((n) => n.providerID() === key || `node:${n.name()}` === key);
  }

  /**
   * Per NodePool: the capacity of its managed nodes plus `nodes` = their count, not counting
   * nodes that are deleting or marked for deletion (their replacements must fit the limits);
   * unlaunched NodeClaims count as one node each (their size is not known yet). Nodes named in
   * `leaving` are not counted either (a disruption command's candidates).
   */
  nodePoolUsage(leaving?: ReadonlySet<string>): Map<string, ResourceList> {
    const usage = new Map<string, ResourceList>();
    for (const n of this.nodes()) {
      const pool = n.nodePoolName();
      if (pool === undefined || !n.managed() || n.deleting() || n.markedForDeletion) continue;
      if (leaving?.has(n.name())) continue;
      usage.set(pool, addResources(usage.get(pool) ?? {}, n.capacity(), { nodes: 1 }));
    }
    for (const c of this.#unlaunched.values()) {
      const pool = c.metadata.labels?.[Labels.NodePool];
      if (pool === undefined || c.metadata.deletionTimestamp !== undefined) continue;
      usage.set(pool, addResources(usage.get(pool) ?? {}, { nodes: 1 }));
    }
    return usage;
  }

  /** NodeClaims created but not launched yet (no provider ID). */
  unlaunchedNodeClaims(): NodeClaim[] {
    return [...this.#unlaunched.values()];
  }

  /** Bound pods, all nodes. */
  boundPods(): Pod[] {
    return [...this.#podsByNode.values()].flatMap((set) =>
      [...set].map((k) => this.#pods.get(k) as Pod),
    );
  }

  /** Tracked DaemonSets. */
  daemonSets(): DaemonSet[] {
    return [...this.#daemonSets.values()];
  }

  /**
   * One pod per DaemonSet, for daemonset overhead: the newest pod it owns (upstream keeps it
   * because admission, LimitRange defaults and webhooks, may change requests), else a pod made
   * from its template with the namespace's LimitRange defaults applied, as admission would give
   * its pods (upstream takes the template as written: a deliberate difference, see
   * packages/controllers/README.md).
   */
  daemonSetPods(): Pod[] {
    const newest = new Map<string, Pod>();
    for (const pod of this.#pods.values()) {
      if (!isDaemonSetPod(pod)) continue;
      const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.kind === 'DaemonSet');
      const key = `${pod.metadata?.namespace ?? 'default'}/${owner?.name}`;
      const seen = newest.get(key);
      if (
        seen === undefined ||
        (timeMs(pod.metadata?.creationTimestamp) ?? 0) >
          (timeMs(seen.metadata?.creationTimestamp) ?? 0)
      ) {
        newest.set(key, pod);
      }
    }
    const out: Pod[] = [];
    for (const [key, ds] of this.#daemonSets) {
      const pod = newest.get(key);
      if (pod !== undefined) {
        out.push(pod);
        continue;
      }
      const template = ds.spec?.template;
      const limitRanges = [...this.#limitRanges.values()];
      const built: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          ...(template?.metadata ?? {}),
          name: `${ds.metadata?.name}-template`,
          namespace: ds.metadata?.namespace ?? 'default',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'DaemonSet',
              name: ds.metadata?.name ?? '',
              uid: ds.metadata?.uid ?? '',
              controller: true,
            },
          ],
        },
        spec: template?.spec ?? { containers: [] },
      };
      out.push(limitRanges.length > 0 ? admitPodResources(built, limitRanges) : built);
    }
    return out;
  }

  /**
   * The provisioning gate (upstream `Synced`): false while a NodeClaim lacks a provider ID
   * (a launch is in flight), or while the API cache holds a NodeClaim or Node this state has not
   * seen. Scheduling on an unsynced state would launch duplicates.
   */
  async synced(client: KubeClient): Promise<boolean> {
    if (this.#unlaunched.size > 0) return false;
    if (this.#hasSynced) return true;
    const [claims, nodes] = await Promise.all([client.list('NodeClaim'), client.list('Node')]);
    const ok =
      claims.every((c) => this.#nodeClaimNameToKey.has(c.metadata.name ?? '')) &&
      claims.every((c) => c.status?.providerID) &&
      nodes.every((n) => this.#nodeNameToKey.has(n.metadata?.name ?? ''));
    if (ok) this.#hasSynced = true;
    return ok;
  }

  #entry(key: string): Entry {
    let e = this.#entries.get(key);
    if (e === undefined) {
      e = {};
      this.#entries.set(key, e);
    }
    return e;
  }

  #keyOfName(name: string): string | undefined {
    return this.#nodeNameToKey.get(name) ?? this.#nodeClaimNameToKey.get(name);
  }

  #detachNode(name: string): void {
    const key = this.#nodeNameToKey.get(name);
    if (key === undefined) return;
    this.#nodeNameToKey.delete(name);
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    delete entry.node;
    this.#dropIfEmpty(key, entry);
  }

  #detachNodeClaim(name: string): void {
    const key = this.#nodeClaimNameToKey.get(name);
    if (key === undefined) return;
    this.#nodeClaimNameToKey.delete(name);
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    delete entry.nodeClaim;
    this.#dropIfEmpty(key, entry);
  }

  #dropIfEmpty(key: string, entry: Entry): void {
    if (entry.node === undefined && entry.nodeClaim === undefined) {
      this.#entries.delete(key);
      this.#nominatedUntil.delete(key);
      this.#markedForDeletion.delete(key);
    }
  }
}
