/**
 * The provisioner (upstream
 * `provisioning/provisioner.go`): a singleton reconciler that, once the batch window closes and
 * cluster state is synced, schedules the pending pods with the Scheduler and creates the node
 * claims it asks for.
 *
 * `reconcile()` is one turn of upstream's singleton loop; the pod and node triggers
 * (`trigger.ts`) feed its batcher.
 */
import type { NodeClaim, NodePool, Pod } from '@karpenter-ts/api';
import { NodePoolConditions, nodePoolHash } from '@karpenter-ts/api';
import {
  isUnevaluatedNodePoolError,
  managesNodeClass,
  type CloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import {
  addResources,
  PodDataCache,
  resourceListFromQuantities,
  Scheduler,
  type ExistingNodeInput,
  type MinValuesPolicy,
  type NewNodeClaim,
  type PreferencePolicy,
  type ResourceList,
  type SchedulingResults,
} from '@karpenter-ts/scheduling';
import type { Clock } from '../clock.js';
import { isTrue } from '../conditions.js';
import type { KubeClient } from '../kube/client.js';
import { PdbLimits } from '../pdb-limits.js';
import { hasDoNotDisrupt, isReschedulable, podKey } from '../pods.js';
import { requeueAfter, type ReconcileResult } from '../reconciler.js';
import type { Cluster } from '../state/cluster.js';
import type { StateNode } from '../state/state-node.js';
import { Batcher, type BatcherOptions } from './batcher.js';
import { buildNodeClaim } from './nodeclaim-builder.js';
import { isProvisionable, validatePod, type PodValidationOptions } from './pod-eligibility.js';
import { VolumeTopology } from './volume-topology.js';

/** Options of {@link Provisioner}. */
export interface ProvisionerOptions extends BatcherOptions, PodValidationOptions {
  readonly client: KubeClient;
  readonly cluster: Cluster;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
  /** Solver for the scheduler's numeric path; default `wasm`. */
  readonly solver?: 'wasm' | 'ts';
  /**
   * Whether the scheduler honours preferred node/pod affinities and `ScheduleAnyway` topology
   * spreads (`Respect`, relaxing them one at a time when they cannot be met) or drops them up
   * front (`Ignore`); upstream `--preference-policy`. Default `Respect`.
   */
  readonly preferencePolicy?: PreferencePolicy;
  /**
   * `Strict`: a NodePool's minValues must be met or the pod fails; `BestEffort`: minValues are
   * lowered as far as needed and the claim is annotated relaxed; upstream `--min-values-policy`.
   * Default `Strict`.
   */
  readonly minValuesPolicy?: MinValuesPolicy;
}

/** The NodePools a scheduler launches from, by name, and their instance types. */
export interface SchedulingInputs {
  readonly pools: ReadonlyMap<string, NodePool>;
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
}

/** What one scheduling pass did. */
export interface ProvisioningResult {
  /** Pods the scheduler considered (pending plus reschedulable pods of deleting nodes). */
  readonly pods: readonly Pod[];
  readonly results: SchedulingResults<InstanceType>;
  /** NodeClaims created (as the API returned them). */
  readonly created: readonly NodeClaim[];
  /** Scheduler results not created, with the reason (e.g. the NodePool limit was reached meanwhile). */
  readonly notCreated: readonly {
    readonly claim: NewNodeClaim<InstanceType>;
    readonly reason: string;
  }[];
}

/** See the module comment. */
export class Provisioner {
  readonly batcher: Batcher;
  readonly #o: ProvisionerOptions;
  /**
   * Pod data shared by the Schedulers of every pass: a pending pod listed unchanged again (a
   * client's shared view) is not derived again.
   */
  readonly #podData: PodDataCache;

  constructor(options: ProvisionerOptions) {
    this.#o = options;
    this.batcher = new Batcher(options.clock, options);
    this.#podData = new PodDataCache(
      options.preferencePolicy ? { preferencePolicy: options.preferencePolicy } : {},
    );
  }

  /** Nomination window, seconds: max(2 × batch max duration, 10 s) (upstream). */
  get nominationSeconds(): number {
    return Math.max(2 * this.batcher.maxSeconds, 10);
  }

  /** Feeds the batcher (called by the pod and node triggers). */
  trigger(id: string): void {
    this.batcher.trigger(id);
  }

  /**
   * One turn: waits for the batch window to close, then for cluster state to be synced (keeping
   * the batch), then schedules and creates node claims. Requeue: until the window closes, 1 s
   * while unsynced or idle (upstream's loop waits up to 1 s for a first trigger).
   */
  async reconcile(): Promise<ReconcileResult> {
    if (this.batcher.empty()) return requeueAfter(1);
    const wait = this.batcher.secondsUntilClosed();
    if (wait > 0) return requeueAfter(wait);
    // Upstream re-enters its loop immediately and then waits up to 1 s for a trigger; a 1 s
    // requeue gives the same pace without a busy loop on a fake clock.
    if (!(await this.#o.cluster.synced(this.#o.client))) return requeueAfter(1);
    this.batcher.take();
    await this.provision();
    // Triggers that arrived meanwhile opened a new window; otherwise idle.
    return requeueAfter(this.batcher.empty() ? 1 : this.batcher.secondsUntilClosed());
  }

  /** Schedules the current pending pods and creates the node claims (one pass, no batching). */
  async provision(): Promise<ProvisioningResult> {
    const { results, pods, pools } = await this.schedule();
    const { created, notCreated } = await this.createNodeClaims(results, pools);
    return { pods, results, created, notCreated };
  }

  /**
   * Builds the scheduler and solves (upstream `Schedule`): state nodes are snapshot before the
   * pending pods are listed, so a node that registers in between is not missed (under- rather
   * than over-provisioning). Pods placed on existing nodes nominate those nodes.
   */
  async schedule(): Promise<{
    results: SchedulingResults<InstanceType>;
    pods: Pod[];
    pools: Map<string, NodePool>;
  }> {
    const { client, cluster, clock } = this.#o;
    const stateNodes = cluster.nodes();
    const pending = await this.pendingPods();
    const fromDeleting = currentlyReschedulable(
      stateNodes.filter((n) => n.markedForDeletion || n.deleting()),
      new PdbLimits(await client.list('PodDisruptionBudget')),
      clock.now(),
    );
    const pods = dedupe([...pending, ...fromDeleting]);
    const pools = new Map<string, NodePool>();
    const empty: SchedulingResults<InstanceType> = {
      newNodeClaims: [],
      existingNodes: [],
      podErrors: new Map(),
    };
    if (pods.length === 0) return { results: empty, pods, pools };

    const inputs = await this.schedulingInputs();
    for (const [k, v] of inputs.pools) pools.set(k, v);
    const scheduler = this.newScheduler(
      inputs,
      stateNodes.filter((n) => !n.markedForDeletion && !n.deleting()),
    );
    const results = scheduler.solve(pods);

    // One message string per distinct reason: pods turned away by hundreds of NodePools share a
    // reason of hundreds of KB, and a message built per pod would hold a copy each.
    const messages = new Map<string, string>();
    for (const [pod, reason] of results.podErrors) {
      let message = messages.get(reason);
      if (message === undefined)
        messages.set(reason, (message = `Failed to schedule pod, ${reason}`));
      client.recordEvent({
        involved: podRef(pod),
        type: 'Warning',
        reason: 'FailedScheduling',
        message,
      });
    }
    for (const placement of results.existingNodes) {
      cluster.nominate(placement.name, this.nominationSeconds);
      for (const pod of placement.pods) {
        client.recordEvent({
          involved: podRef(pod),
          type: 'Normal',
          reason: 'Nominated',
          message: `Pod should schedule on: node/${placement.name}`,
        });
      }
    }
    return { results, pods, pools };
  }

  /**
   * The NodePools the scheduler may launch from ({@link readyNodePools}) by name, and their
   * instance types (pools whose listing fails get an `InstanceTypesUnavailable` event and are
   * left out; pools with no types, and pools the NodeOverlay evaluation has not covered yet
   * (UnevaluatedNodePoolError), are left out). Shared by provisioning and the disruption
   * simulations, so both see the same catalog.
   */
  async schedulingInputs(): Promise<SchedulingInputs> {
    const { client } = this.#o;
    const pools = new Map<string, NodePool>();
    for (const pool of await this.readyNodePools()) pools.set(pool.metadata.name ?? '', pool);
    const instanceTypes = new Map<string, readonly InstanceType[]>();
    for (const pool of pools.values()) {
      try {
        const types = await this.#o.cloudProvider.getInstanceTypes(pool);
        if (types.length > 0) instanceTypes.set(pool.metadata.name ?? '', types);
      } catch (err) {
        // Awaiting the NodeOverlay controller's first evaluation of this pool: left out for
        // now (upstream), without an event, as it resolves within a pass.
        if (isUnevaluatedNodePoolError(err)) continue;
        client.recordEvent({
          involved: { kind: 'NodePool', name: pool.metadata.name ?? '' },
          type: 'Warning',
          reason: 'InstanceTypesUnavailable',
          message: `skipping nodepool: listing instance types failed: ${(err as Error).message}`,
        });
      }
    }
    return { pools, instanceTypes };
  }

  /**
   * A Scheduler over `inputs` whose existing nodes are the given state nodes that have a
   * provider ID (launched or registered), with this provisioner's solver and policies. The
   * caller picks the nodes: provisioning passes every node not going away, a consolidation
   * simulation also leaves out its candidates.
   */
  newScheduler(inputs: SchedulingInputs, nodes: readonly StateNode[]): Scheduler<InstanceType> {
    const volumes = new VolumeTopology(this.#o.cluster.storage.snapshot());
    const existingNodes: ExistingNodeInput[] = nodes
      .filter((n) => n.providerID() !== '')
      .map((n) => {
        const nodePoolName = n.nodePoolName();
        const volumeLimits = volumes.volumeLimits(n.name());
        return {
          name: n.name(),
          labels: n.labels(),
          taints: n.taints(),
          allocatable: n.allocatable(),
          capacity: n.capacity(),
          pods: n.pods,
          initialized: n.initialized(),
          ...(n.managed() && nodePoolName !== undefined ? { nodePoolName } : {}),
          ...(volumeLimits !== undefined ? { volumeLimits } : {}),
        };
      });
    return new Scheduler<InstanceType>({
      nodePools: [...inputs.pools.values()],
      instanceTypes: inputs.instanceTypes,
      existingNodes,
      daemonSetPods: this.#o.cluster.daemonSetPods(),
      podVolumes: (pod) => volumes.podVolumes(pod),
      podDataCache: this.#podData,
      ...(this.#o.solver ? { solver: this.#o.solver } : {}),
      ...(this.#o.preferencePolicy ? { preferencePolicy: this.#o.preferencePolicy } : {}),
      ...(this.#o.minValuesPolicy ? { minValuesPolicy: this.#o.minValuesPolicy } : {}),
      // The provider's labels are well known to the scheduler too: a pod may select one its
      // NodePool leaves open (upstream providers add theirs to v1.WellKnownLabels).
      ...(this.#o.extraWellKnownLabels ? { wellKnownLabels: this.#o.extraWellKnownLabels } : {}),
    });
  }

  /**
   * Pods waiting for capacity: provisionable and valid (constraints, and volumes: see
   * VolumeTopology.validate). Invalid ones get a FailedScheduling
   * event (except the silent `nodepool DoesNotExist` case) unless `recordEvents` is false (the
   * disruption simulations read the same pods without repeating the provisioner's events).
   */
  async pendingPods(recordEvents = true): Promise<Pod[]> {
    const out: Pod[] = [];
    const volumes = new VolumeTopology(this.#o.cluster.storage.snapshot());
    // Only unbound pods, as upstream lists them (field selector `spec.nodeName=`): copying every
    // bound pod on each pass was most of a large simulation's time. Not copied where the client
    // shares its objects: the pods are only read, and the same objects hit the pod data cache.
    const listing = { nodeName: '' };
    const { client } = this.#o;
    const pods = client.view?.('Pod', listing) ?? (await client.list('Pod', listing));
    for (const pod of pods) {
      if (!isProvisionable(pod)) continue;
      const volumeProblem = volumes.validate(pod);
      const rejection =
        validatePod(pod, this.#o) ??
        (volumeProblem === undefined ? undefined : { message: volumeProblem, silent: false });
      if (rejection === undefined) {
        out.push(pod);
      } else if (!rejection.silent && recordEvents) {
        this.#o.client.recordEvent({
          involved: podRef(pod),
          type: 'Warning',
          reason: 'FailedScheduling',
          message: `Ignoring pod, ${rejection.message}`,
        });
      }
    }
    return out;
  }

  /**
   * NodePools the scheduler may launch from (upstream `NewScheduler`): `Ready=True`, not
   * deleting, not static (`replicas` unset), with a NodeClass kind this cloud provider manages.
   */
  async readyNodePools(): Promise<NodePool[]> {
    return (await this.#o.client.list('NodePool')).filter(
      (pool) =>
        isTrue(pool, NodePoolConditions.Ready) &&
        pool.metadata.deletionTimestamp === undefined &&
        pool.spec.replicas === undefined &&
        managesNodeClass(this.#o.cloudProvider, pool.spec.template.spec.nodeClassRef),
    );
  }

  /**
   * Creates one NodeClaim per new node claim result. Before each create the NodePool's limits
   * are checked again (the create-time recheck, which catches capacity launched since the
   * scheduler ran): current usage (`Cluster.nodePoolUsage`, plus claims created earlier in this
   * pass) plus the least this claim adds (one node and the smallest
   * capacity among its options) must stay within every limit. Upstream only refuses once the
   * pool's usage already exceeds a limit; ours also refuses a claim that would exceed it. Created claims are put into
   * cluster state at once, and their pods get `Nominated` events.
   *
   * `options.leaving` names nodes a disruption command is replacing: their capacity is not
   * counted (they go once the replacements are up), so a replacement fits where they are.
   */
  async createNodeClaims(
    results: Pick<SchedulingResults<InstanceType>, 'newNodeClaims'>,
    pools: ReadonlyMap<string, NodePool>,
    options: { readonly leaving?: ReadonlySet<string> } = {},
  ): Promise<{
    created: NodeClaim[];
    notCreated: { claim: NewNodeClaim<InstanceType>; reason: string }[];
  }> {
    const { client, cluster } = this.#o;
    const created: NodeClaim[] = [];
    const notCreated: { claim: NewNodeClaim<InstanceType>; reason: string }[] = [];
    const usage = cluster.nodePoolUsage(options.leaving);
    const hashes = new Map<string, string>();
    // Like Karpenter's own, the provider's well-known labels stay out of NodeClaim labels.
    const extra = this.#o.extraWellKnownLabels;
    const buildOptions = extra === undefined ? {} : { extraWellKnownLabels: new Set(extra) };
    for (const claim of results.newNodeClaims) {
      const pool = pools.get(claim.nodePoolName);
      if (pool === undefined) {
        notCreated.push({ claim, reason: `nodepool ${claim.nodePoolName} not found` });
        continue;
      }
      const used = usage.get(claim.nodePoolName) ?? {};
      const adds = addResources(smallestCapacity(claim.instanceTypeOptions), { nodes: 1 });
      const exceeded = exceededLimit(pool, addResources(used, adds));
      if (exceeded !== undefined) {
        const reason = `nodepool ${claim.nodePoolName} limit exceeded: ${exceeded}`;
        notCreated.push({ claim, reason });
        for (const pod of claim.pods) {
          client.recordEvent({
            involved: podRef(pod),
            type: 'Warning',
            reason: 'FailedScheduling',
            message: `Failed to schedule pod, ${reason}`,
          });
        }
        continue;
      }
      let hash = hashes.get(claim.nodePoolName);
      if (hash === undefined) {
        hash = nodePoolHash(pool);
        hashes.set(claim.nodePoolName, hash);
      }
      const object = buildNodeClaim(pool, claim, { ...buildOptions, nodePoolHash: hash });
      const nodeClaim = await client.create('NodeClaim', object);
      cluster.updateNodeClaim(nodeClaim);
      created.push(nodeClaim);
      usage.set(claim.nodePoolName, addResources(used, adds));
      for (const pod of claim.pods) {
        client.recordEvent({
          involved: podRef(pod),
          type: 'Normal',
          reason: 'Nominated',
          message: `Pod should schedule on: nodeclaim/${nodeClaim.metadata.name}`,
        });
      }
    }
    return { created, notCreated };
  }
}

/** Key-wise minimum capacity over the instance types (the least a claim of them adds). */
function smallestCapacity(types: readonly InstanceType[]): ResourceList {
  const first = types[0];
  if (first === undefined) return {};
  const out: ResourceList = { ...first.capacity };
  for (const it of types) {
    for (const k of Object.keys(out)) out[k] = Math.min(out[k] ?? 0, it.capacity[k] ?? 0);
  }
  return out;
}

/** The first `spec.limits` resource that `usage` exceeds (`name: usage > limit`), or undefined. */
function exceededLimit(pool: NodePool, usage: ResourceList): string | undefined {
  const limits = pool.spec.limits;
  if (limits === undefined) return undefined;
  for (const [name, quantity] of Object.entries(limits)) {
    let limit: number;
    try {
      limit = resourceListFromQuantities({ [name]: quantity })[name] ?? 0;
    } catch {
      continue; // Too large to be exact: no usage reaches it.
    }
    const used = usage[name] ?? 0;
    if (used > limit) return `${name}: ${used} > ${limit}`;
  }
  return undefined;
}

/**
 * Pods of nodes going away that need a new home now (upstream `IsCurrentlyReschedulable`):
 * reschedulable, no active do-not-disrupt, and not selected by a budget that never allows an
 * eviction (those stay until the drain's deadline).
 */
export function currentlyReschedulable(
  nodes: readonly StateNode[],
  pdbs: PdbLimits,
  nowMs: number,
): Pod[] {
  return nodes.flatMap((n) =>
    n.pods.filter(
      (p) => isReschedulable(p) && !hasDoNotDisrupt(p, nowMs) && !pdbs.fullyBlocking(p),
    ),
  );
}

function podRef(pod: Pod): { kind: 'Pod'; name: string; namespace: string; uid?: string } {
  return {
    kind: 'Pod',
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? 'default',
    ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
  };
}

function dedupe(pods: Pod[]): Pod[] {
  const seen = new Set<string>();
  return pods.filter((p) => {
    const k = podKey(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
