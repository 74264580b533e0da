/**
 * Runs the controllers of @karpenter-ts/controllers against a live {@link KubeClient}, the way
 * controller-runtime's manager runs upstream's: cluster-state informers, then one work queue per
 * controller fed by watch events and by each reconciler's `requeueAfter`.
 *
 * | queue | key | fed by |
 * | --- | --- | --- |
 * | nodepool | NodePool name | NodePool events; NodeClass events (every pool) |
 * | nodepool-counter | NodePool name | NodePool events; its own requeue (5 s; 1 s while cluster state is unsynced) |
 * | provisioner | singleton | its own requeue (1 s while idle), pod and node triggers |
 * | pod-trigger | pod namespace/name | Pod events; every Pod at start; requeue 10 s while provisionable |
 * | node-trigger | Node name | Node events (disrupted taint); every Node at start |
 * | nodeclaim | NodeClaim name | NodeClaim events; Node events (the claim with its provider ID) |
 * | termination | Node name | Node events while the Node is deleting; deleting Nodes at start |
 * | nodeclaim-disruption | NodeClaim name | NodeClaim events; NodePool events (its claims); NodeClass events (the claims launched from it); its own requeue (Consolidatable/Drifted conditions, expiration) |
 * | node-health | Node name | Node events, when the NodeRepair gate is on; its own requeue |
 * | disruption | singleton | its own requeue (10 s poll; 15 s validation wait) |
 * | disruption-queue | singleton | commands started; its own requeue (1 s while commands wait) |
 * | nodeoverlay | singleton | NodeOverlay, NodePool and NodeClass events, when the NodeOverlay gate is on; start; its own requeue (6 h) |
 * | garbagecollection | singleton | start; deletion of a NodeClaim without provider ID (while it collects orphan instances); its own requeue (2 min; sooner while an orphan waits to be 30 s old) |
 *
 * Watches report only changes made after they subscribe, and the informers list before the
 * manager starts (before the Lease is won), so {@link Manager.start} enqueues what the caches
 * already hold, as controller-runtime's initial list gives every upstream controller: NodePools,
 * NodeClasses, NodeClaims, every Pod and every Node.
 *
 * Plus any extra periodic tasks (the kwok-like kubelets' sync, Azure garbage collection), each
 * run at start and then on its interval (runtime/periodic-tasks.ts). Each queue reconciles up
 * to its `workers` keys at once (runtime/workers.ts: scaled by `--cpu-requests` as upstream's).
 */
import type { NodeClaim, Pod, RuntimeValidationOptions } from '@karpenter-ts/api';
import type { CloudProvider } from '@karpenter-ts/cloudprovider';
import {
  Cluster,
  DisruptionController,
  Expiration,
  GarbageCollection,
  NodeClaimDisruption,
  NodeHealth,
  NodePoolHash,
  PodEvents,
  type DisruptionObserver,
  consolidationType,
  decision,
  NodeClaimLifecycle,
  InstanceTypeStore,
  NodeOverlayController,
  OverlaidCloudProvider,
  NodePoolCounter,
  NodePoolReadiness,
  NodePoolValidation,
  NodeTermination,
  Provisioner,
  reconcileNodeTrigger,
  reconcilePodTrigger,
  startClusterInformers,
  type Clock,
  type GarbageCollectionOptions,
  type KubeClient,
  type ProvisionerOptions,
  type ReconcileResult,
  type WatchEvent,
} from '@karpenter-ts/controllers';
import { allowUndefinedWellKnownLabels } from '@karpenter-ts/scheduling';
import type { Logger } from 'pino';
import { meteredCloudProvider } from '../observability/metered-cloud-provider.js';
import type { OperatorMetrics } from '../observability/metrics.js';
import { startPeriodicTasks, type PeriodicTask } from './periodic-tasks.js';
import { WorkQueue } from './work-queue.js';
import { queueWorkers, type QueueName, type QueueWorkers } from './workers.js';

export type { PeriodicTask } from './periodic-tasks.js';

/** Options of {@link Manager}. */
export interface ManagerOptions {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: OperatorMetrics;
  /** Batching, solver and policies of the provisioner. */
  readonly provisioner?: Partial<
    Omit<ProvisionerOptions, 'client' | 'cluster' | 'cloudProvider' | 'clock'>
  >;
  readonly periodic?: readonly PeriodicTask[];
  /** Keys each queue reconciles at once; default `queueWorkers(1000)` (one core). */
  readonly workers?: Partial<QueueWorkers>;
  /** Extra NodePool-keyed reconcilers (e.g. a provider's NodeClass status); run per NodeClass event. */
  readonly nodeClassReconcilers?: readonly ((name: string) => Promise<ReconcileResult>)[];
  /** Provider label rules for NodePool validation (well-known labels, restricted domains). */
  readonly validation?: RuntimeValidationOptions;
  /**
   * Options of the core garbage collection (see GarbageCollectionOptions): `orphanGraceSeconds`
   * (default 30) and `collectOrphanInstances` (default true). A provider whose own GC collects
   * instances no NodeClaim owns passes `collectOrphanInstances: false` (Azure), so each orphan
   * has one owner, as upstream.
   */
  readonly garbageCollection?: Partial<
    Omit<GarbageCollectionOptions, 'client' | 'cloudProvider' | 'clock'>
  >;
  /** Feature gate `SpotToSpotConsolidation` (default false). */
  readonly spotToSpotConsolidation?: boolean;
  /** Feature gate `NodeRepair` (default false): run node repair with the provider's policies. */
  readonly nodeRepair?: boolean;
  /**
   * Feature gate `NodeOverlay` (default false, as upstream): every controller reads instance
   * types through the overlaid cloud provider, and the NodeOverlay controller runs. The client
   * must cache `NodeOverlay` then.
   */
  readonly nodeOverlay?: boolean;
}

const Singleton = 'singleton';

/** See the module comment. */
export class Manager {
  readonly cluster: Cluster;
  readonly provisioner: Provisioner;
  /** The core garbage collection (its queue starts with {@link start}). */
  readonly garbageCollection: GarbageCollection;
  /** The disruption controller and its orchestration queue (their queues start with {@link start}). */
  readonly disruption: DisruptionController;
  /** The NodeOverlay controller (gate NodeOverlay), else undefined. */
  readonly nodeOverlay: NodeOverlayController | undefined;
  readonly #o: ManagerOptions;
  readonly #cloud: (controller: string) => CloudProvider;
  readonly #queues: WorkQueue[] = [];
  readonly #unwatch: (() => void)[] = [];
  #stopPeriodic: (() => void) | undefined;
  #stopInformers: (() => void) | undefined;
  #started = false;
  #stopped = false;
  #informersSynced = false;

  constructor(options: ManagerOptions) {
    this.#o = options;
    const { client, clock, metrics } = options;
    const metered = (controller: string) =>
      meteredCloudProvider(options.cloudProvider, metrics, controller);
    let cloud = metered;
    if (options.nodeOverlay === true) {
      const store = new InstanceTypeStore();
      const extra = options.provisioner?.extraWellKnownLabels;
      this.nodeOverlay = new NodeOverlayController({
        client,
        cloudProvider: metered('nodeoverlay'),
        store,
        clock,
        ...(options.validation ? { validation: options.validation } : {}),
        ...(extra !== undefined
          ? { allowUndefinedLabels: allowUndefinedWellKnownLabels(extra) }
          : {}),
      });
      cloud = (controller: string) => new OverlaidCloudProvider(metered(controller), store);
    } else {
      this.nodeOverlay = undefined;
    }
    this.#cloud = cloud;
    this.cluster = new Cluster(clock);
    this.provisioner = new Provisioner({
      ...(options.provisioner ?? {}),
      client,
      cluster: this.cluster,
      cloudProvider: cloud('provisioner'),
      clock,
    });
    this.#instrumentProvisioner();
    this.garbageCollection = new GarbageCollection({
      ...(options.garbageCollection ?? {}),
      client,
      cloudProvider: cloud('nodeclaim.garbagecollection'),
      clock,
    });
    this.disruption = new DisruptionController({
      client,
      cluster: this.cluster,
      provisioner: this.provisioner,
      clock,
      spotToSpotConsolidation: options.spotToSpotConsolidation ?? false,
      observer: disruptionMetrics(options),
    });
  }

  /** True once the cluster-state informers have listed everything (the readiness check). */
  get synced(): boolean {
    return this.#informersSynced;
  }

  /** Starts informers, queues, watches and periodic tasks. Resolves once cluster state has listed. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const { client, clock, logger, metrics } = this.#o;
    const cloud = this.#cloud;
    const validation = new NodePoolValidation({ ...(this.#o.validation ?? {}), client, clock });
    const readiness = new NodePoolReadiness({
      client,
      cloudProvider: cloud('nodepool.readiness'),
      clock,
    });
    const counter = new NodePoolCounter({
      client,
      cluster: this.cluster,
      cloudProvider: cloud('nodepool.counter'),
    });
    const lifecycle = new NodeClaimLifecycle({
      client,
      cloudProvider: cloud('nodeclaim.lifecycle'),
      clock,
    });
    const termination = new NodeTermination({
      client,
      cloudProvider: cloud('node.termination'),
      clock,
    });
    const gc = this.garbageCollection;
    const hash = new NodePoolHash({ client });
    const providerLabels = this.#o.provisioner?.extraWellKnownLabels;
    const claimDisruption = new NodeClaimDisruption({
      client,
      cloudProvider: cloud('nodeclaim.disruption'),
      clock,
      ...(providerLabels !== undefined
        ? { allowUndefinedLabels: allowUndefinedWellKnownLabels(providerLabels) }
        : {}),
    });
    const expiration = new Expiration({
      client,
      clock,
      onExpired: (nc) => metrics.nodeClaimDisrupted(nc, 'Expired', 'forceful'),
    });
    const podEvents = new PodEvents({ client, clock });
    const health = new NodeHealth({
      client,
      cloudProvider: cloud('node.health'),
      clock,
      onRepaired: (nc, condition) => metrics.nodeClaimUnhealthyDisrupted(nc, condition),
    });

    const workers = { ...queueWorkers(1000), ...(this.#o.workers ?? {}) };
    const queue = (
      name: QueueName,
      reconcile: (key: string) => Promise<ReconcileResult | void>,
    ) => {
      const log = logger.child({ logger: `controller.${name}` });
      const q = new WorkQueue({
        name,
        reconcile,
        concurrency: workers[name],
        onError: (key, err, retry) =>
          log.error({ key, error: errorText(err), retryInSeconds: retry }, 'reconciler error'),
      });
      this.#queues.push(q);
      return q;
    };
    const nodePools = queue('nodepool', async (name) => {
      const v = await validation.reconcile(name);
      const r = await readiness.reconcile(name);
      const h = await hash.reconcile(name);
      return earliest(earliest(v, r), h);
    });
    const counters = queue('nodepool-counter', (name) => counter.reconcile(name));
    const extra = this.#o.nodeClassReconcilers ?? [];
    const nodeClasses = queue('nodeclass', async (name) => {
      let result: ReconcileResult = {};
      for (const reconcile of extra) result = earliest(result, await reconcile(name));
      return result;
    });
    const provisioner = queue('provisioner', () => this.provisioner.reconcile());
    const podTrigger = queue('pod-trigger', async (key) => {
      const [namespace, name] = splitKey(key);
      const pod = await client.get('Pod', { namespace, name });
      return pod === undefined ? {} : reconcilePodTrigger(this.provisioner, pod);
    });
    const nodeTrigger = queue('node-trigger', async (name) => {
      const node = await client.get('Node', { name });
      return node === undefined ? {} : reconcileNodeTrigger(this.provisioner, node);
    });
    const nodeClaims = queue('nodeclaim', (name) => lifecycle.reconcile(name));
    const terminations = queue('termination', (name) => termination.reconcile(name));
    const garbage = queue('garbagecollection', () => gc.reconcile());
    const claimConditions = queue('nodeclaim-disruption', async (name) =>
      earliest(await claimDisruption.reconcile(name), await expiration.reconcile(name)),
    );
    const nodeHealth = queue('node-health', (name) => health.reconcile(name));
    const overlayController = this.nodeOverlay;
    const overlays =
      overlayController === undefined
        ? undefined
        : queue('nodeoverlay', () => overlayController.reconcile());
    const disruptionQueue = queue('disruption-queue', () => this.disruption.queue.reconcile());
    const disruption = queue('disruption', async () => {
      // By identity, not by count: the queue may finish a command while this pass starts one.
      const before = new Set(this.disruption.queue.commands());
      const result = await this.disruption.reconcile();
      if (this.disruption.queue.commands().some((c) => !before.has(c)))
        disruptionQueue.add(Singleton);
      return result;
    });

    // Counters fed from what the API server reports, only for objects created after start.
    const startedAt = Date.now() - 1000;
    const createdSinceStart = (ts: Date | string | undefined) =>
      ts !== undefined && new Date(ts).getTime() >= startedAt;

    // Overlays are re-evaluated on spec changes only (upstream's GenerationChangedPredicate):
    // status writes (the overlay controller's own, NodePool readiness and counters) do not count.
    const generations = new Map<string, number | undefined>();
    const specChanged = (kind: string, e: WatchEvent<'NodeOverlay' | 'NodePool' | 'NodeClass'>) => {
      const key = `${kind}/${e.object.metadata.name ?? ''}`;
      const generation = e.object.metadata.generation;
      if (e.type === 'DELETED') {
        generations.delete(key);
        return true;
      }
      const changed = generation === undefined || generations.get(key) !== generation;
      generations.set(key, generation);
      return changed;
    };
    if (overlays !== undefined) {
      this.#unwatch.push(
        client.watch('NodeOverlay', (e) => {
          if (specChanged('NodeOverlay', e)) overlays.add(Singleton);
        }),
      );
    }
    this.#unwatch.push(
      client.watch('NodePool', (e) => {
        if (overlays !== undefined && specChanged('NodePool', e)) overlays.add(Singleton);
        nodePools.add(e.object.metadata.name ?? '');
        if (e.type !== 'DELETED') counters.add(e.object.metadata.name ?? '');
        // A template or disruption change moves drift and consolidatable state of its claims.
        if (e.type === 'MODIFIED') {
          void client
            .list('NodeClaim', {
              labels: { 'karpenter.sh/nodepool': e.object.metadata.name ?? '' },
            })
            .then((claims) => {
              for (const nc of claims) claimConditions.add(nc.metadata.name ?? '');
            });
        }
      }),
      client.watch('NodeClass', async (e) => {
        const name = e.object.metadata.name ?? '';
        nodeClasses.add(name);
        if (overlays !== undefined && specChanged(e.object.kind, e)) overlays.add(Singleton);
        for (const pool of await client.list('NodePool')) nodePools.add(pool.metadata.name ?? '');
        // A NodeClass change (its spec, or status such as a provider's node images) moves the
        // drift of the node claims launched from it (upstream's NodeClassEventHandler); without
        // this they would see it only at their next 5-minute drift check.
        if (e.type === 'DELETED') return;
        const group = e.object.apiVersion.split('/')[0];
        for (const nc of await client.list('NodeClaim')) {
          const ref = nc.spec.nodeClassRef;
          if (ref.name === name && ref.kind === e.object.kind && ref.group === group)
            claimConditions.add(nc.metadata.name ?? '');
        }
      }),
      client.watch('Pod', (e) => {
        if (e.type === 'DELETED') return;
        podTrigger.add(podKey(e.object));
      }),
      client.watch('NodeClaim', (e) => {
        nodeClaims.add(e.object.metadata.name ?? '');
        if (e.type !== 'DELETED') claimConditions.add(e.object.metadata.name ?? '');
        if (e.type === 'DELETED') metrics.nodeClaimTerminated(e.object);
        // A NodeClass being deleted waits for its node claims (a provider's finalizer): the last
        // one going lets it finish now rather than at its next periodic check.
        if (e.type === 'DELETED') nodeClasses.add(e.object.spec.nodeClassRef.name);
        // Gone before its launch result was written (e.g. deleted while no controller ran): its
        // instance, if any, has no owner now. Look now, not at the next 2 min pass (unless a
        // provider's own GC collects orphans: then this pass would not touch it).
        if (e.type === 'DELETED' && !e.object.status?.providerID && gc.collectsOrphanInstances)
          garbage.add(Singleton);
      }),
      client.watch('Node', (e) => {
        const node = e.object;
        const name = node.metadata?.name ?? '';
        if (e.type === 'DELETED') metrics.nodeTerminated(node);
        else if (e.type === 'ADDED' && createdSinceStart(node.metadata?.creationTimestamp))
          metrics.nodeCreated(node);
        if (e.type !== 'DELETED') nodeTrigger.add(name);
        if (e.type !== 'DELETED' && this.#o.nodeRepair === true) nodeHealth.add(name);
        if (node.metadata?.deletionTimestamp !== undefined && e.type !== 'DELETED')
          terminations.add(name);
        void this.#claimOf(node.spec?.providerID).then((claim) => {
          if (claim !== undefined) nodeClaims.add(claim);
        });
      }),
    );
    this.#stopInformers = await startClusterInformers(client, this.cluster);
    // Stopped while the informers listed (SIGTERM right after winning the Lease): start nothing.
    if (this.#stopped) return this.stop();
    this.#informersSynced = true;
    metrics.setSource({
      clusterStateSynced: () => this.cluster.synced(client),
      clusterStateNodeCount: () => this.cluster.nodes().length,
      pods: () => client.list('Pod'),
      nodes: () => client.list('Node'),
    });

    for (const q of this.#queues) q.start();
    for (const pool of await client.list('NodePool')) {
      nodePools.add(pool.metadata.name ?? '');
      counters.add(pool.metadata.name ?? '');
    }
    for (const nc of await client.list('NodeClass')) nodeClasses.add(nc.metadata.name ?? '');
    for (const nc of await client.list('NodeClaim')) {
      nodeClaims.add(nc.metadata.name ?? '');
      claimConditions.add(nc.metadata.name ?? '');
    }
    // A pod pending since before a restart or a leader change may never change again (the
    // kube-scheduler's retries leave its status as it is): without this pass it never provisions.
    for (const pod of await client.list('Pod')) podTrigger.add(podKey(pod));
    for (const node of await client.list('Node')) {
      const name = node.metadata?.name ?? '';
      nodeTrigger.add(name);
      if (node.metadata?.deletionTimestamp !== undefined) terminations.add(name);
    }
    overlays?.add(Singleton);
    provisioner.add(Singleton);
    disruption.add(Singleton);
    this.#unwatch.push(podEvents.start());
    // First pass now, then every 2 min (upstream's singleton runs at start): instances leaked
    // while no controller ran are found right after a restart or a leader change.
    garbage.add(Singleton);

    if (this.#stopped) return;
    // Each periodic task runs now, then on its interval (kwok kubelets register machines left
    // from before; Azure GC collects what leaked while no controller ran).
    this.#stopPeriodic = startPeriodicTasks(this.#o.periodic ?? [], logger);
    logger.info(
      {
        queues: this.#queues.map((q) => q.name),
        // Whether the core pass or only a provider's own GC deletes instances no NodeClaim owns.
        collectOrphanInstances: gc.collectsOrphanInstances,
      },
      'controllers started',
    );
  }

  /** Stops watches, timers and informers, and waits for running reconciles. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopPeriodic?.();
    this.#stopPeriodic = undefined;
    for (const u of this.#unwatch) u();
    this.#unwatch.length = 0;
    await Promise.all(this.#queues.map((q) => q.stop()));
    this.#stopInformers?.();
    this.#stopInformers = undefined;
  }

  async #claimOf(providerID: string | undefined): Promise<string | undefined> {
    if (!providerID) return undefined;
    const [claim] = await this.#o.client.list('NodeClaim', { providerID });
    return claim?.metadata.name;
  }

  /** Times the scheduling simulation and counts created node claims (upstream's metrics). */
  #instrumentProvisioner(): void {
    const { metrics } = this.#o;
    const p = this.provisioner;
    const schedule = p.schedule.bind(p);
    p.schedule = async () => {
      const end = metrics.schedulingDuration.startTimer({ controller: 'provisioner' });
      try {
        const out = await schedule();
        metrics.unschedulablePods.set({ controller: 'provisioner' }, out.results.podErrors.size);
        return out;
      } finally {
        end();
      }
    };
    const provision = p.provision.bind(p);
    p.provision = async () => {
      const out = await provision();
      for (const nc of out.created as NodeClaim[]) metrics.nodeClaimCreated(nc, 'provisioning');
      // Only when claims were created, as upstream: a pod that fits nowhere would otherwise log
      // an empty list on every batch (its FailedScheduling event and metric report it).
      if (out.created.length > 0) {
        this.#o.logger.info(
          {
            pods: out.pods.length,
            nodeClaims: out.created.map((c) => c.metadata.name),
            unschedulable: out.results.podErrors.size,
          },
          'computed new nodeclaim(s) to fit pod(s)',
        );
      }
      return out;
    };
  }
}

/** The disruption hooks, as upstream's metrics. */
function disruptionMetrics(options: ManagerOptions): DisruptionObserver {
  const m = options.metrics;
  const log = options.logger.child({ logger: 'controller.disruption' });
  return {
    evaluated: (method, reason, seconds) => m.disruptionEvaluated(method, reason, seconds),
    eligibleNodes: (reason, count) => m.disruptionEligibleNodes.set({ reason }, count),
    allowedDisruptions: (nodepool, reason, allowed) =>
      m.allowedDisruptions.set({ nodepool, reason }, allowed),
    commandStarted: (command) => {
      m.disruptionDecision(command);
      log.info(
        {
          method: command.method,
          reason: command.reason,
          nodes: command.candidates.map((c) => c.name),
          replacements: command.replacements.map((r) => r.instanceTypeOptions[0]?.name ?? ''),
          savingsUSDPerHour: Number(command.savings.toFixed(6)),
        },
        'disrupting node(s)',
      );
    },
    nodeClaimCreated: (nc, reason) => m.nodeClaimCreated(nc, reason),
    nodeClaimDisrupted: (nc, command) =>
      m.nodeClaimDisrupted(
        nc,
        command.reason,
        command.disruptionClass === 'eventual' && nc.spec.terminationGracePeriod !== undefined
          ? 'eventual'
          : 'graceful',
        command.candidates[0]?.nodePool.spec.disruption?.consolidationPolicy ??
          'WhenEmptyOrUnderutilized',
      ),
    failedValidation: (command, why) => {
      m.failedValidations.inc({ consolidation_type: consolidationType(command.method) });
      log.info({ method: command.method, why }, 'abandoning disruption command');
    },
    queueFailure: (command, why) => {
      m.queueFailures.inc({
        decision: decision(command),
        reason: command.reason,
        consolidation_type: consolidationType(command.method),
      });
      log.error({ method: command.method, why }, 'disruption command failed and was rolled back');
    },
  };
}

function earliest(a: ReconcileResult | void, b: ReconcileResult | void): ReconcileResult {
  const x = a?.requeueAfter;
  const y = b?.requeueAfter;
  if (x === undefined) return y === undefined ? {} : { requeueAfter: y };
  if (y === undefined) return { requeueAfter: x };
  return { requeueAfter: Math.min(x, y) };
}

/** The pod-trigger key of a pod: `namespace/name`. */
function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

/** An error as one line for the log. */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
