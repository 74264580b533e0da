/**
 * The kwok-like mode of the sim provider: a {@link CloudProvider} decorator that plays the
 * kubelet of every machine the wrapped cloud launches, against a real API server. On `create` it
 * registers a Node for the launched NodeClaim (labels, taints incl. `karpenter.sh/unregistered`,
 * capacity, allocatable, provider ID, `Ready=True`), so the real kube-scheduler binds pods to
 * it; on `delete` it deletes that Node. {@link KwokCloudProvider.sync} is the kubelets' periodic
 * work: register Nodes whose first registration failed, renew node Leases (the heartbeat the
 * node lifecycle controller watches), remove startup taints, and finish the deletion of
 * terminating pods (there is no container runtime, so nothing else would).
 *
 * Upstream does this with its KWOK provider plus the kwok controller. The cluster side is the
 * small {@link KwokClusterApi} below, so this
 * package depends on neither the controllers nor a Kubernetes client.
 */
import type { Node, NodeClaim, NodePool, Pod, Taint } from '@karpenter-ts/api';
import { systemClock, type Clock } from '../clock.js';
import { NodeClaimNotFoundError } from '../errors.js';
import type { CloudProvider, InstanceType, NodeClassKind, RepairPolicy } from '../types.js';
import { kwokNodeFor } from './kwok-node.js';

/**
 * What the kwok-like mode needs from the cluster. Only `createNode` and `deleteNode` are
 * required; each optional method turns on one more kubelet duty in {@link KwokCloudProvider.sync}.
 */
export interface KwokClusterApi {
  /** Creates the Node with its status (as a kubelet registers). Resolves if it already exists. */
  createNode(node: Node): Promise<void>;
  /** Deletes the Node by name. Resolves if it is already gone or already deleting. */
  deleteNode(name: string): Promise<void>;
  /**
   * Creates or renews the node's Lease in `kube-node-lease` (holder = node name), the heartbeat
   * without which the node lifecycle controller marks the node `Ready=Unknown` after its grace
   * period and taints it unreachable.
   */
  renewNodeLease?(nodeName: string, leaseDurationSeconds: number): Promise<void>;
  /** Pods bound to the node (`spec.nodeName`). */
  podsOnNode?(nodeName: string): Promise<Pod[]>;
  /** Deletes the pod with grace period 0 (the kubelet confirming its containers stopped). */
  forceDeletePod?(namespace: string, name: string, uid: string): Promise<void>;
  /** Removes these taints (matched by key and effect) from the node, if present. */
  removeNodeTaints?(nodeName: string, taints: readonly Taint[]): Promise<void>;
}

/** Options of {@link KwokCloudProvider}. */
export interface KwokOptions {
  readonly api: KwokClusterApi;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Seconds between Lease renewals per node; default 10 (kubelet: 25 % of a 40 s lease). */
  readonly heartbeatSeconds?: number;
  /** Lease duration written on renewal, seconds; default 40 (kubelet's default). */
  readonly leaseDurationSeconds?: number;
  /** Seconds after registration before startup taints are removed; default 0 (next sync). */
  readonly startupTaintRemovalSeconds?: number;
  /** Called with failures of the kubelet duties (they are retried on the next sync). */
  readonly onError?: (error: unknown, context: string) => void;
}

/** What one {@link KwokCloudProvider.sync} pass did (node and pod names). */
export interface KwokSyncResult {
  readonly registered: readonly string[];
  readonly leasesRenewed: readonly string[];
  readonly startupTaintsRemoved: readonly string[];
  /** `namespace/name` of terminating pods whose deletion was finished. */
  readonly podsDeleted: readonly string[];
}

interface KwokNodeState {
  readonly nodeClaim: NodeClaim;
  registeredAt?: number;
  leaseRenewedAt?: number;
  startupTaintsRemoved: boolean;
}

/** See the module comment. Wraps any CloudProvider; most often a {@link SimCloudProvider}. */
export class KwokCloudProvider implements CloudProvider {
  readonly name: string;
  readonly #inner: CloudProvider;
  readonly #api: KwokClusterApi;
  readonly #clock: Clock;
  readonly #heartbeatMs: number;
  readonly #leaseSeconds: number;
  readonly #startupDelayMs: number;
  readonly #onError: (error: unknown, context: string) => void;
  /** Machines this decorator launched, by node (= NodeClaim) name. */
  readonly #nodes = new Map<string, KwokNodeState>();

  /** Raises RangeError for a non-positive heartbeat or lease duration or a negative delay. */
  constructor(inner: CloudProvider, options: KwokOptions) {
    this.#inner = inner;
    this.name = inner.name;
    this.#api = options.api;
    this.#clock = options.clock ?? systemClock;
    const heartbeat = options.heartbeatSeconds ?? 10;
    const lease = options.leaseDurationSeconds ?? 40;
    const startup = options.startupTaintRemovalSeconds ?? 0;
    if (!(heartbeat > 0)) throw new RangeError(`heartbeatSeconds must be > 0, got ${heartbeat}`);
    if (!(lease > 0)) throw new RangeError(`leaseDurationSeconds must be > 0, got ${lease}`);
    if (!(startup >= 0))
      throw new RangeError(`startupTaintRemovalSeconds must be >= 0, got ${startup}`);
    this.#heartbeatMs = heartbeat * 1000;
    this.#leaseSeconds = lease;
    this.#startupDelayMs = startup * 1000;
    this.#onError = options.onError ?? (() => {});
  }

  /** The wrapped cloud (for tests and reports, e.g. a SimCloudProvider's `instances()`). */
  get inner(): CloudProvider {
    return this.#inner;
  }

  /**
   * Launches through the wrapped cloud, then registers the Node. A failed registration does not
   * fail the launch (the machine exists; a kubelet would keep trying): it is reported to
   * `onError` and retried by {@link sync}. Raises whatever the wrapped cloud raises.
   */
  async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    const launched = await this.#inner.create(nodeClaim);
    const name = launched.metadata.name ?? '';
    const state = this.#nodes.get(name) ?? { nodeClaim: launched, startupTaintsRemoved: false };
    this.#nodes.set(name, state);
    await this.#register(name, state);
    return launched;
  }

  /**
   * Terminates through the wrapped cloud, then deletes the Node (the node of a terminated
   * machine goes away). When the wrapped cloud raises NodeClaimNotFoundError the Node is still
   * deleted, then the error is raised: that is how the caller learns termination finished.
   */
  async delete(nodeClaim: NodeClaim): Promise<void> {
    const name = nodeClaim.metadata.name ?? '';
    let notFound: NodeClaimNotFoundError | undefined;
    try {
      await this.#inner.delete(nodeClaim);
    } catch (err) {
      if (!(err instanceof NodeClaimNotFoundError)) throw err;
      notFound = err;
    }
    this.#nodes.delete(name);
    await this.#api.deleteNode(name);
    if (notFound !== undefined) throw notFound;
  }

  get(providerID: string): Promise<NodeClaim> {
    return this.#inner.get(providerID);
  }

  list(): Promise<NodeClaim[]> {
    return this.#inner.list();
  }

  getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]> {
    return this.#inner.getInstanceTypes(nodePool);
  }

  isDrifted(nodeClaim: NodeClaim): Promise<string> {
    return this.#inner.isDrifted(nodeClaim);
  }

  repairPolicies(): readonly RepairPolicy[] {
    return this.#inner.repairPolicies();
  }

  getSupportedNodeClasses(): readonly NodeClassKind[] {
    return this.#inner.getSupportedNodeClasses();
  }

  /** Names of the Nodes this decorator has registered and not deleted. */
  registeredNodes(): string[] {
    return [...this.#nodes].filter(([, s]) => s.registeredAt !== undefined).map(([n]) => n);
  }

  /**
   * One pass of the kubelets' duties over every running machine of the wrapped cloud: register
   * missing Nodes, renew due Leases, remove due startup taints, force-delete terminating pods.
   * Machines the wrapped cloud no longer lists are forgotten. Never raises: failures go to
   * `onError` and are retried next pass.
   */
  async sync(): Promise<KwokSyncResult> {
    const result = {
      registered: [] as string[],
      leasesRenewed: [] as string[],
      startupTaintsRemoved: [] as string[],
      podsDeleted: [] as string[],
    };
    let running: NodeClaim[];
    try {
      running = await this.#inner.list();
    } catch (err) {
      this.#onError(err, 'listing machines');
      return result;
    }
    const names = new Set<string>();
    for (const nc of running) {
      const name = nc.metadata.name ?? '';
      names.add(name);
      if (!this.#nodes.has(name))
        this.#nodes.set(name, { nodeClaim: nc, startupTaintsRemoved: false });
    }
    for (const name of [...this.#nodes.keys()]) if (!names.has(name)) this.#nodes.delete(name);

    const now = () => this.#clock.now();
    for (const [name, state] of this.#nodes) {
      if (state.registeredAt === undefined) {
        if (await this.#register(name, state)) result.registered.push(name);
        else continue;
      }
      if (
        this.#api.renewNodeLease !== undefined &&
        (state.leaseRenewedAt === undefined || now() - state.leaseRenewedAt >= this.#heartbeatMs)
      ) {
        try {
          await this.#api.renewNodeLease(name, this.#leaseSeconds);
          state.leaseRenewedAt = now();
          result.leasesRenewed.push(name);
        } catch (err) {
          this.#onError(err, `renewing the lease of node ${name}`);
        }
      }
      const startupTaints = state.nodeClaim.spec.startupTaints ?? [];
      if (
        this.#api.removeNodeTaints !== undefined &&
        !state.startupTaintsRemoved &&
        startupTaints.length > 0 &&
        now() >= (state.registeredAt ?? 0) + this.#startupDelayMs
      ) {
        try {
          await this.#api.removeNodeTaints(name, startupTaints);
          state.startupTaintsRemoved = true;
          result.startupTaintsRemoved.push(name);
        } catch (err) {
          this.#onError(err, `removing startup taints of node ${name}`);
        }
      }
      if (this.#api.podsOnNode !== undefined && this.#api.forceDeletePod !== undefined) {
        result.podsDeleted.push(...(await this.#finishPodDeletions(name)));
      }
    }
    return result;
  }

  async #register(name: string, state: KwokNodeState): Promise<boolean> {
    try {
      await this.#api.createNode(kwokNodeFor(state.nodeClaim, this.#clock.now()));
      state.registeredAt = this.#clock.now();
      return true;
    } catch (err) {
      this.#onError(err, `registering node ${name}`);
      return false;
    }
  }

  async #finishPodDeletions(nodeName: string): Promise<string[]> {
    const deleted: string[] = [];
    try {
      const pods = (await this.#api.podsOnNode?.(nodeName)) ?? [];
      for (const pod of pods) {
        const meta = pod.metadata;
        if (meta?.deletionTimestamp === undefined || meta.deletionTimestamp === null) continue;
        const ns = meta.namespace ?? 'default';
        await this.#api.forceDeletePod?.(ns, meta.name ?? '', meta.uid ?? '');
        deleted.push(`${ns}/${meta.name}`);
      }
    } catch (err) {
      this.#onError(err, `finishing pod deletions on node ${nodeName}`);
    }
    return deleted;
  }
}
