/**
 * Runs every controller of this package against a {@link MemoryKubeClient} and a cloud
 * provider on a {@link ManualClock}, in fixed ticks: the in-memory stand-in for the operator's
 * work queues, used by end-to-end tests and the simulator. Each tick runs, in order: the
 * NodeOverlay controller (gate `NodeOverlay`: when a NodeOverlay, NodePool or NodeClass changed,
 * or 6 h after its last pass), NodePool validation, readiness, counter and hash, the ReplicaSet and kube-scheduler stand-ins, the provisioning triggers (each pod and
 * node when new, changed or its requeue is due), the provisioner, the node claim lifecycle (each NodeClaim when new, when it or its Node
 * changed, or when its requeue is due), the NodeClaim disruption
 * conditions and expiration (each NodeClaim when its requeue time comes or it or its NodePool
 * changed), the disruption controller (on its requeue) and its orchestration queue, the kubelet
 * stand-in, node repair (gate `NodeRepair`), node termination for every deleting Node, and garbage collection when due; then the
 * clock moves one tick. Pod events reach their controller through a watch. Reconcilers are
 * level-triggered and idempotent, so running most of them every tick is correct, only less
 * economical than honoring each requeue time.
 */
import type { CloudProvider } from '@karpenter-ts/cloudprovider';
import type { ManualClock } from '../clock.js';
import { GarbageCollection } from '../garbagecollection/controller.js';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { NodeClaimLifecycle } from '../nodeclaim/lifecycle/controller.js';
import { NodePoolCounter } from '../nodepool/counter/controller.js';
import { NodePoolReadiness } from '../nodepool/readiness/controller.js';
import { NodePoolValidation } from '../nodepool/validation/controller.js';
import { NodePoolHash } from '../nodepool/hash/controller.js';
import { NodeClaimDisruption } from '../nodeclaim/disruption/controller.js';
import { Expiration } from '../nodeclaim/expiration/controller.js';
import { PodEvents } from '../nodeclaim/podevents/controller.js';
import { NodeHealth } from '../node/health/controller.js';
import { DisruptionController } from '../disruption/controller.js';
import type { DisruptionObserver } from '../disruption/observer.js';
import type { ReconcileResult } from '../reconciler.js';
import { Provisioner, type ProvisionerOptions } from '../provisioning/provisioner.js';
import { reconcileNodeTrigger, reconcilePodTrigger } from '../provisioning/trigger.js';
import { Cluster } from '../state/cluster.js';
import { startClusterInformers } from '../state/informer.js';
import { NodeTermination } from '../termination/controller.js';
import { SimKubeScheduler } from './kube-scheduler.js';
import { SimKubelet, type SimKubeletOptions } from './kubelet.js';
import { SimReplicaSets } from './replica-sets.js';
import { RequeueTimes } from './requeue-times.js';
import { NodeOverlayController } from '../nodeoverlay/controller.js';
import { InstanceTypeStore } from '../nodeoverlay/instance-type-store.js';
import { OverlaidCloudProvider } from '../nodeoverlay/overlaid-cloud-provider.js';
import { allowUndefinedWellKnownLabels } from '@karpenter-ts/scheduling';

/** Options of {@link ControllerLoop}. */
export interface ControllerLoopOptions {
  readonly client: MemoryKubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: ManualClock;
  /** Seconds per tick; default 1. */
  readonly tickSeconds?: number;
  /** Provisioner settings (batch durations, solver, policies). */
  readonly provisioner?: Partial<
    Omit<ProvisionerOptions, 'client' | 'cluster' | 'cloudProvider' | 'clock'>
  >;
  /** Kubelet stand-in delays. */
  readonly kubelet?: Omit<SimKubeletOptions, 'client' | 'clock'>;
  /** Run the kube-scheduler stand-in (bind pods, mark Unschedulable); default true. */
  readonly kubeScheduler?: boolean;
  /** Run the disruption controller (consolidation, drift); default true. Expiration always runs. */
  readonly disruption?: boolean;
  /** Feature gate `SpotToSpotConsolidation`; default false. */
  readonly spotToSpotConsolidation?: boolean;
  /** Feature gate `NodeRepair`: replace nodes the provider's repair policies call unhealthy; default false. */
  readonly nodeRepair?: boolean;
  /**
   * Feature gate `NodeOverlay` (default false, as upstream): every controller reads instance
   * types through the overlaid cloud provider and the NodeOverlay controller evaluates the
   * overlays and writes their conditions.
   */
  readonly nodeOverlay?: boolean;
  readonly disruptionObserver?: DisruptionObserver;
}

/** See the module comment. Call {@link start} once before stepping. */
export class ControllerLoop {
  readonly cluster: Cluster;
  readonly nodePoolValidation: NodePoolValidation;
  readonly nodePoolReadiness: NodePoolReadiness;
  readonly nodePoolCounter: NodePoolCounter;
  readonly provisioner: Provisioner;
  readonly lifecycle: NodeClaimLifecycle;
  readonly termination: NodeTermination;
  readonly garbageCollection: GarbageCollection;
  readonly nodePoolHash: NodePoolHash;
  readonly nodeClaimDisruption: NodeClaimDisruption;
  readonly expiration: Expiration;
  readonly podEvents: PodEvents;
  readonly disruption: DisruptionController;
  readonly nodeHealth: NodeHealth;
  readonly kubelet: SimKubelet;
  readonly kubeScheduler: SimKubeScheduler | undefined;
  /** Workloads whose pods come back after an eviction (register them with `add`). */
  readonly replicaSets: SimReplicaSets;
  /** The NodeOverlay controller, with the `NodeOverlay` gate on. */
  readonly nodeOverlay: NodeOverlayController | undefined;
  /** The cloud provider the controllers use (overlaid with the `NodeOverlay` gate on). */
  readonly cloudProvider: CloudProvider;
  /** The overlay evaluation the controllers read (gate `NodeOverlay`), for reports of their catalog. */
  readonly instanceTypeStore: InstanceTypeStore | undefined;
  #nextOverlay = 0;
  #overlayInputs = '';
  #nextGc = 0;
  #nextDisruption = 0;
  /** Per NodeClaim name: when its disruption conditions and expiration are due, and what they saw. */
  readonly #claimDue = new RequeueTimes();
  /** Per NodeClaim name: when its lifecycle is next due, and the NodeClaim and Node versions it saw. */
  readonly #lifecycleDue = new RequeueTimes();
  /** Per pod and node (`pod/UID`, `node/UID`): when its provisioning trigger is next due, and the version it saw. */
  readonly #triggerDue = new RequeueTimes();
  #stop: (() => void) | undefined;
  #stopPodEvents: (() => void) | undefined;

  constructor(private readonly o: ControllerLoopOptions) {
    const { client, clock } = o;
    let cloudProvider = o.cloudProvider;
    if (o.nodeOverlay === true) {
      const store = new InstanceTypeStore();
      const extra = o.provisioner?.extraWellKnownLabels;
      this.nodeOverlay = new NodeOverlayController({
        client,
        cloudProvider: o.cloudProvider,
        store,
        clock,
        ...(extra !== undefined
          ? {
              validation: { extraWellKnownLabels: [...extra] },
              allowUndefinedLabels: allowUndefinedWellKnownLabels(extra),
            }
          : {}),
      });
      cloudProvider = new OverlaidCloudProvider(o.cloudProvider, store);
      this.instanceTypeStore = store;
    } else {
      this.nodeOverlay = undefined;
      this.instanceTypeStore = undefined;
    }
    this.cloudProvider = cloudProvider;
    this.cluster = new Cluster(clock);
    this.nodePoolValidation = new NodePoolValidation({ client, clock });
    this.nodePoolReadiness = new NodePoolReadiness({ client, cloudProvider, clock });
    this.nodePoolCounter = new NodePoolCounter({ client, cluster: this.cluster, cloudProvider });
    this.provisioner = new Provisioner({
      ...(o.provisioner ?? {}),
      client,
      cluster: this.cluster,
      cloudProvider,
      clock,
    });
    this.lifecycle = new NodeClaimLifecycle({ client, cloudProvider, clock });
    this.termination = new NodeTermination({ client, cloudProvider, clock });
    this.garbageCollection = new GarbageCollection({ client, cloudProvider, clock });
    this.nodePoolHash = new NodePoolHash({ client });
    const providerLabels = o.provisioner?.extraWellKnownLabels;
    this.nodeClaimDisruption = new NodeClaimDisruption({
      client,
      cloudProvider,
      clock,
      ...(providerLabels !== undefined
        ? { allowUndefinedLabels: allowUndefinedWellKnownLabels(providerLabels) }
        : {}),
    });
    this.expiration = new Expiration({ client, clock });
    this.podEvents = new PodEvents({ client, clock });
    this.nodeHealth = new NodeHealth({ client, cloudProvider, clock });
    this.disruption = new DisruptionController({
      client,
      cluster: this.cluster,
      provisioner: this.provisioner,
      clock,
      ...(o.spotToSpotConsolidation !== undefined
        ? { spotToSpotConsolidation: o.spotToSpotConsolidation }
        : {}),
      ...(o.disruptionObserver ? { observer: o.disruptionObserver } : {}),
    });
    this.kubelet = new SimKubelet({ ...(o.kubelet ?? {}), client, clock });
    this.replicaSets = new SimReplicaSets(client);
    this.kubeScheduler =
      o.kubeScheduler === false
        ? undefined
        : new SimKubeScheduler(client, o.provisioner?.solver ?? 'ts');
  }

  /**
   * Starts the cluster state informers and, with the `NodeOverlay` gate on, evaluates the
   * overlays once (as the operator does at start), so a plan computed before the first tick
   * already sees the overlaid instance types.
   */
  async start(): Promise<void> {
    this.#stop ??= await startClusterInformers(this.o.client, this.cluster);
    await this.#reconcileNodeOverlays();
    this.#stopPodEvents ??= this.podEvents.start();
    this.#nextGc = this.o.clock.now();
    this.#nextDisruption = this.o.clock.now();
  }

  /** Stops the informers. */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
    this.#stopPodEvents?.();
    this.#stopPodEvents = undefined;
  }

  /** One tick (see the module comment). */
  async step(): Promise<void> {
    const { client, clock } = this.o;
    await this.#reconcileNodeOverlays();
    for (const pool of client.view('NodePool')) {
      await this.nodePoolValidation.reconcile(pool.metadata.name ?? '');
      await this.nodePoolReadiness.reconcile(pool.metadata.name ?? '');
      await this.nodePoolCounter.reconcile(pool.metadata.name ?? '');
      await this.nodePoolHash.reconcile(pool.metadata.name ?? '');
    }
    await this.replicaSets.reconcile();
    await this.kubeScheduler?.reconcile();
    this.#reconcileTriggers();
    await this.provisioner.reconcile();
    await this.#reconcileLifecycle();
    await this.#reconcileClaimDisruption();
    if (this.o.disruption !== false) {
      if (clock.now() >= this.#nextDisruption) {
        const r = await this.disruption.reconcile();
        this.#nextDisruption = clock.now() + (r.requeueAfter ?? 10) * 1000;
      }
      await this.disruption.queue.reconcile();
    }
    await this.kubelet.reconcile();
    if (this.o.nodeRepair === true) {
      for (const node of client.view('Node'))
        await this.nodeHealth.reconcile(node.metadata?.name ?? '');
    }
    for (const node of client.view('Node')) {
      if (node.metadata?.deletionTimestamp !== undefined)
        await this.termination.reconcile(node.metadata?.name ?? '');
    }
    if (clock.now() >= this.#nextGc) {
      const r = await this.garbageCollection.reconcile();
      this.#nextGc = clock.now() + (r.requeueAfter ?? 120) * 1000;
    }
    clock.advance(this.o.tickSeconds ?? 1);
  }

  /**
   * When the loop's timed work is next due, in clock milliseconds: the disruption pass (its
   * requeue, 10 s while there is nothing to do), garbage collection, and the earliest NodeClaim
   * disruption-condition or expiration check (undefined while no NodeClaim has one). Everything
   * else runs on every tick, or on a change or its own requeue (provisioning triggers, the
   * NodeClaim lifecycle), which a jump runs at the next tick. For callers that move the clock in
   * jumps (the simulator).
   */
  timers(): { disruption: number; garbageCollection: number; nodeClaims: number | undefined } {
    const nodeClaims = this.#claimDue.earliest();
    return { disruption: this.#nextDisruption, garbageCollection: this.#nextGc, nodeClaims };
  }

  /**
   * The NodeOverlay controller, when the spec of an overlay or pool, or a NodeClass, changed
   * since its last pass (its own status writes do not count), or its requeue is due (6 h; 1 s
   * after a status conflict, 10 s after a failed listing).
   */
  async #reconcileNodeOverlays(): Promise<void> {
    if (this.nodeOverlay === undefined) return;
    const { client, clock } = this.o;
    const inputs = [
      ...(await client.list('NodeOverlay')).map(
        (o) => `o ${o.metadata.name} ${JSON.stringify(o.spec)}`,
      ),
      ...(await client.list('NodePool')).map(
        (p) => `p ${p.metadata.name} ${JSON.stringify(p.spec)}`,
      ),
      ...(await client.list('NodeClass')).map(
        (c) => `c ${c.kind} ${c.metadata.name} ${c.metadata.resourceVersion}`,
      ),
    ].join('\n');
    if (inputs === this.#overlayInputs && clock.now() < this.#nextOverlay) return;
    const r = await this.nodeOverlay.reconcile();
    this.#overlayInputs = inputs;
    this.#nextOverlay = clock.now() + (r.requeueAfter ?? 1) * 1000;
  }

  /**
   * The NodeClaim lifecycle, for each NodeClaim when new, when it or its Node (by provider ID)
   * changed, or when its requeue comes: what upstream's controller watches, and all a step reads
   * besides the clock (liveness and launch retries requeue). Every NodeClaim on every tick made a
   * simulation of thousands of nodes spend a quarter of its time re-reading settled claims.
   */
  async #reconcileLifecycle(): Promise<void> {
    const { client, clock } = this.o;
    const nodes = new Map<string, string>();
    for (const n of client.view('Node'))
      if (n.spec?.providerID) nodes.set(n.spec.providerID, n.metadata?.resourceVersion ?? '');
    for (const nc of client.view('NodeClaim')) {
      const name = nc.metadata.name ?? '';
      const providerID = nc.status?.providerID;
      const version = `${nc.metadata.resourceVersion}/${providerID === undefined ? '' : (nodes.get(providerID) ?? '-')}`;
      if (!this.#lifecycleDue.due(name, version, clock.now())) continue;
      const r = await this.lifecycle.reconcile(name);
      const at = r.requeueAfter === undefined ? Infinity : clock.now() + r.requeueAfter * 1000;
      this.#lifecycleDue.ran(name, version, at);
    }
    this.#lifecycleDue.forgetUnseen();
  }

  /**
   * The provisioning triggers, as a work queue runs them: a pod or node on its first sight, when
   * it changed (a watch event), or when its requeue (10 s while provisionable, as upstream's pod
   * controller) comes. Triggering every pod every tick would re-solve a backlog no pass can place
   * every other second instead of every ten.
   */
  #reconcileTriggers(): void {
    const { client, clock } = this.o;
    const now = clock.now();
    const run = (
      key: string,
      version: string | undefined,
      reconcile: () => ReconcileResult,
    ): void => {
      if (!this.#triggerDue.due(key, version, now)) return;
      const r = reconcile();
      const at = r.requeueAfter === undefined ? Infinity : now + r.requeueAfter * 1000;
      this.#triggerDue.ran(key, version, at);
    };
    for (const pod of client.view('Pod'))
      run(
        `pod/${pod.metadata?.uid ?? `${pod.metadata?.namespace}/${pod.metadata?.name}`}`,
        pod.metadata?.resourceVersion,
        () => reconcilePodTrigger(this.provisioner, pod),
      );
    for (const node of client.view('Node'))
      run(`node/${node.metadata?.uid ?? node.metadata?.name}`, node.metadata?.resourceVersion, () =>
        reconcileNodeTrigger(this.provisioner, node),
      );
    this.#triggerDue.forgetUnseen();
  }

  /** NodeClaim disruption conditions and expiration, for claims that are due or changed. */
  async #reconcileClaimDisruption(): Promise<void> {
    const { client, clock } = this.o;
    const pools = new Map(
      client.view('NodePool').map((p) => [p.metadata.name ?? '', p.metadata.resourceVersion ?? '']),
    );
    for (const nc of client.view('NodeClaim')) {
      const name = nc.metadata.name ?? '';
      const version = `${nc.metadata.resourceVersion}/${pools.get(nc.metadata.labels?.['karpenter.sh/nodepool'] ?? '') ?? ''}`;
      if (!this.#claimDue.due(name, version, clock.now())) continue;
      const a = await this.nodeClaimDisruption.reconcile(name);
      const b = await this.expiration.reconcile(name);
      const after = earliest(a, b) ?? 300;
      const latest = client.viewOne('NodeClaim', { name });
      const latestVersion = `${latest?.metadata.resourceVersion}/${pools.get(latest?.metadata.labels?.['karpenter.sh/nodepool'] ?? '') ?? ''}`;
      this.#claimDue.ran(name, latestVersion, clock.now() + after * 1000);
    }
    this.#claimDue.forgetUnseen();
  }

  /** Steps until `done()` holds (checked before each tick) or `maxSeconds` of clock time pass. Returns whether it held. */
  async runUntil(done: () => boolean | Promise<boolean>, maxSeconds = 600): Promise<boolean> {
    const end = this.o.clock.now() + maxSeconds * 1000;
    while (this.o.clock.now() <= end) {
      if (await done()) return true;
      await this.step();
    }
    return done();
  }
}

function earliest(a: ReconcileResult, b: ReconcileResult): number | undefined {
  const x = a.requeueAfter;
  const y = b.requeueAfter;
  if (x === undefined) return y;
  if (y === undefined) return x;
  return Math.min(x, y);
}
