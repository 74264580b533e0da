/**
 * The autoscaler under test, as the engine drives it. Karpenter (the real controllers in
 * ControllerLoop) is one; a Cluster Autoscaler model can be another: it runs on the same
 * {@link SimulatedCluster} (client, clock, cloud, node start delays) with the same workload
 * stand-ins, scenario and measures.
 */
import type { SimCloudProvider } from '@karpenter-ts/cloudprovider';
import type { ManualClock, SimReplicaSets } from '@karpenter-ts/controllers';
import type { Cloud } from '@karpenter-ts/cli';
import type { MeasureRecorder } from '../measures/recorder.js';
import type { KarpenterSettings, NodeStartup } from '../scenario/types.js';
import type { ObservedKubeClient } from './observed-client.js';

/** The simulated cluster and cloud every autoscaler works on. */
export interface SimulatedCluster {
  readonly clock: ManualClock;
  readonly client: ObservedKubeClient;
  /** The sim cloud over the chosen provider's catalog and prices. */
  readonly cloud: SimCloudProvider;
  /** The CLI's adapter of the chosen cloud (catalog, defaults, well-known labels). */
  readonly adapter: Cloud;
  readonly nodeStartup: NodeStartup;
}

/** What an autoscaler under test does, tick by tick. */
export interface Autoscaler {
  /** `karpenter`, `cluster-autoscaler`. */
  readonly name: string;
  /** The ReplicaSet controller stand-in its ticks run (the engine registers and scales workloads there). */
  readonly replicaSets: SimReplicaSets;
  start(): Promise<void>;
  /**
   * One tick at the clock's time: the autoscaler's controllers and the cluster stand-ins it
   * owns (kube-scheduler, kubelet, ReplicaSets). It may move the clock on by its tick (1 s).
   */
  step(): Promise<void>;
  /** Work in flight: machines launching, nodes draining, decisions queued. Pending pods the engine counts itself. */
  busy(): boolean;
  /**
   * The earliest clock ms at which one of its timers is due (a poll, a requeue, a node the
   * kubelet will register), or undefined when none is. `coalesce`: the autoscaler may skip polls
   * it knows cannot change anything while the cluster is unchanged.
   */
  nextDueMs(coalesce: boolean): number | undefined;
  stop(): void;
}

/** What an autoscaler is built from. */
export interface AutoscalerContext {
  readonly cluster: SimulatedCluster;
  readonly recorder: MeasureRecorder;
  readonly settings: KarpenterSettings;
  /** The scenario's seed (an autoscaler's own random draws come from it). */
  readonly seed: number;
  /** Solver of the scheduling hot path. */
  readonly solver: 'wasm' | 'ts';
}

/** Makes an autoscaler for a run. */
export type AutoscalerFactory = (ctx: AutoscalerContext) => Autoscaler;
