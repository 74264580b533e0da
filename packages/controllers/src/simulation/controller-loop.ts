/**
 * Runs every controller of this package against a {@link MemoryKubeClient} and a cloud
 * provider on a {@link ManualClock}, in fixed ticks: the in-memory stand-in for the operator's
 * work queues, used by end-to-end tests and the simulator. Each tick runs, in order: NodePool
 * validation, readiness and counter, the kube-scheduler stand-in, the provisioning triggers, the provisioner, the node claim lifecycle
 * for every NodeClaim, the kubelet stand-in, node termination for every deleting Node, and
 * garbage collection when due; then the clock moves one tick. Reconcilers are level-triggered
 * and idempotent, so running each one every tick is correct, only less economical than
 * honoring each requeue time.
 */
import type { CloudProvider } from '@karpenter-ts/cloudprovider';
import type { ManualClock } from '../clock.js';
import { GarbageCollection } from '../garbagecollection/controller.js';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { NodeClaimLifecycle } from '../nodeclaim/lifecycle/controller.js';
import { NodePoolCounter } from '../nodepool/counter/controller.js';
import { NodePoolReadiness } from '../nodepool/readiness/controller.js';
import { NodePoolValidation } from '../nodepool/validation/controller.js';
import { Provisioner, type ProvisionerOptions } from '../provisioning/provisioner.js';
import { reconcileNodeTrigger, reconcilePodTrigger } from '../provisioning/trigger.js';
import { Cluster } from '../state/cluster.js';
import { startClusterInformers } from '../state/informer.js';
import { NodeTermination } from '../termination/controller.js';
import { SimKubeScheduler } from './kube-scheduler.js';
import { SimKubelet, type SimKubeletOptions } from './kubelet.js';

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
  readonly kubelet: SimKubelet;
  readonly kubeScheduler: SimKubeScheduler | undefined;
  #nextGc = 0;
  #stop: (() => void) | undefined;

  constructor(private readonly o: ControllerLoopOptions) {
    const { client, cloudProvider, clock } = o;
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
    this.kubelet = new SimKubelet({ ...(o.kubelet ?? {}), client, clock });
    this.kubeScheduler =
      o.kubeScheduler === false
        ? undefined
        : new SimKubeScheduler(client, o.provisioner?.solver ?? 'ts');
  }

  /** Starts the cluster state informers. */
  async start(): Promise<void> {
    this.#stop ??= await startClusterInformers(this.o.client, this.cluster);
    this.#nextGc = this.o.clock.now();
  }

  /** Stops the informers. */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  /** One tick (see the module comment). */
  async step(): Promise<void> {
    const { client, clock } = this.o;
    for (const pool of await client.list('NodePool')) {
      await this.nodePoolValidation.reconcile(pool.metadata.name ?? '');
      await this.nodePoolReadiness.reconcile(pool.metadata.name ?? '');
      await this.nodePoolCounter.reconcile(pool.metadata.name ?? '');
    }
    await this.kubeScheduler?.reconcile();
    for (const pod of await client.list('Pod')) reconcilePodTrigger(this.provisioner, pod);
    for (const node of await client.list('Node')) reconcileNodeTrigger(this.provisioner, node);
    await this.provisioner.reconcile();
    for (const nc of await client.list('NodeClaim'))
      await this.lifecycle.reconcile(nc.metadata.name ?? '');
    await this.kubelet.reconcile();
    for (const node of await client.list('Node')) {
      if (node.metadata?.deletionTimestamp !== undefined)
        await this.termination.reconcile(node.metadata?.name ?? '');
    }
    if (clock.now() >= this.#nextGc) {
      const r = await this.garbageCollection.reconcile();
      this.#nextGc = clock.now() + (r.requeueAfter ?? 120) * 1000;
    }
    clock.advance(this.o.tickSeconds ?? 1);
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
