/**
 * The simulator's JSON output, format `karpenter-ts-sim/v1`: what the HTML report and any other
 * reader build on. docs/simulator.md describes every field; a change that breaks a reader gets
 * a new format name.
 *
 * Units everywhere: time `t` in seconds since the scenario's time 0; durations in seconds; cpu in
 * millicores; memory in bytes; money in USD (rates in USD per hour). Numbers are rounded
 * (money to 6 decimals, seconds to 3) so that the same scenario and seed give the same bytes.
 */

/** The format name written as `format`. */
export const OUTPUT_FORMAT = 'karpenter-ts-sim/v1';

/** The whole output of one `karpenter-ts-sim run`. */
export interface SimulationOutput {
  readonly format: typeof OUTPUT_FORMAT;
  readonly scenario: ScenarioInfo;
  /** One per autoscaler × cloud run, in the order they ran. */
  readonly runs: readonly RunOutput[];
}

/** What was run. */
export interface ScenarioInfo {
  readonly name: string;
  /** The scenario file as given. */
  readonly file: string;
  readonly seed: number;
  /** Time 0 as an ISO 8601 UTC time. */
  readonly start: string;
  readonly durationSeconds: number;
  /** Seconds between samples. */
  readonly sampleSeconds: number;
}

/** Capacity types as Karpenter labels them. */
export type CapacityTypeName = 'on-demand' | 'spot' | 'reserved';

/** One run of the scenario: an autoscaler on a cloud region. */
export interface RunOutput {
  /** `autoscaler/cloud/region`, e.g. `karpenter/azure/eastus`. */
  readonly id: string;
  /** `karpenter`, or `cluster-autoscaler` for the baseline model. */
  readonly autoscaler: string;
  readonly cloud: string;
  readonly region: string;
  /** The sweep's NodePool variant the run used (absent outside sweeps); the id then starts with it. */
  readonly variant?: string;
  /** The node start delays used, seconds. */
  readonly nodeStartup: {
    readonly launchSeconds: number;
    readonly bootSeconds: number;
    readonly registrationSeconds: number;
  };
  readonly summary: RunSummary;
  /** Every `sampleSeconds` from 0 to the end (inclusive): the state at that instant. */
  readonly samples: readonly Sample[];
  /** What happened, in time order. */
  readonly events: readonly TimelineEvent[];
  /** Choices the run made that a reader should know (default NodePool used, spot pricing, ...). */
  readonly notes: readonly string[];
}

/** Percentiles of a set of durations, seconds (nearest-rank). */
export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** Requested and allocatable resources. */
export interface ResourcePair {
  /** Millicores. */
  readonly cpu: number;
  /** Bytes. */
  readonly memory: number;
}

/** Counters that only grow over a run. */
export interface Counters {
  /** Nodes voluntarily disrupted (by consolidation, emptiness, drift) or expired, per reason. */
  readonly disruptions: Readonly<Record<string, number>>;
  /** Pods evicted through the Eviction API (drains). */
  readonly evictions: number;
  /** Spot interruptions delivered. */
  readonly interruptions: number;
  /** Launches that failed (insufficient capacity, NodeClass not ready; under the CA model, a node not registered within its provision time). */
  readonly failedLaunches: number;
  /** Nodes that failed (scenario node failures). */
  readonly nodeFailures: number;
  /** Nodes launched (cloud instances created). */
  readonly nodesLaunched: number;
  /** Nodes terminated (cloud instances gone). */
  readonly nodesTerminated: number;
  /** Pods created (not DaemonSet pods). */
  readonly podsCreated: number;
  /** Pods that completed (Jobs, trace pods). */
  readonly podsCompleted: number;
}

/** The state at one instant. */
export interface Sample {
  readonly t: number;
  /** Cloud instances running (billed), whether or not their Node has registered. */
  readonly nodes: number;
  /** Instances by instance type, then capacity type. */
  readonly nodesByInstanceType: Readonly<
    Record<string, Readonly<Partial<Record<CapacityTypeName, number>>>>
  >;
  readonly nodesByCapacityType: Readonly<Partial<Record<CapacityTypeName, number>>>;
  /** USD per hour of the running instances. */
  readonly usdPerHour: number;
  /** USD spent since time 0 (the integral of usdPerHour). */
  readonly usdSpent: number;
  /** Pods waiting for a node (created, not bound, not DaemonSet pods). */
  readonly pendingPods: number;
  /** Pods bound to a node and running (DaemonSet pods included). */
  readonly runningPods: number;
  /** Requests of the running pods, summed over nodes. */
  readonly requested: ResourcePair;
  /** Allocatable of the registered Nodes. */
  readonly allocatable: ResourcePair;
  /** Time from creation to bound of the pods bound since the previous sample; null when none. */
  readonly timeToBound: Percentiles | null;
  /** Counters so far. */
  readonly counters: Counters;
}

/** The whole run in numbers. */
export interface RunSummary {
  readonly usdSpent: number;
  /** Time-weighted mean and the peak of usdPerHour. */
  readonly usdPerHour: { readonly mean: number; readonly peak: number };
  readonly nodes: { readonly peak: number; readonly final: number };
  /** Instances at the end, by instance type and capacity type. */
  readonly finalNodesByInstanceType: Sample['nodesByInstanceType'];
  readonly pendingPods: { readonly peak: number; readonly final: number };
  /** Every pod bound during the run. */
  readonly timeToBound: Percentiles | null;
  /** Mean over the samples of requested ÷ allocatable (0 when nothing is allocatable). */
  readonly utilization: { readonly cpu: number; readonly memory: number };
  readonly counters: Counters;
  /** Loop ticks run (each runs every controller once). */
  readonly ticks: number;
}

/** Something that happened at time `t`. */
export type TimelineEvent =
  | {
      readonly t: number;
      readonly type: 'node-launched';
      readonly node: string;
      readonly instanceType: string;
      readonly zone: string;
      readonly capacityType: CapacityTypeName;
      readonly usdPerHour: number;
    }
  | {
      readonly t: number;
      readonly type: 'node-terminated';
      readonly node: string;
      readonly instanceType: string;
    }
  | {
      readonly t: number;
      readonly type: 'disruption';
      /** `Empty`, `Underutilized`, `Drifted`, `Expired`, `Unhealthy` (node repair); `Unready` (the CA model removing an unready node). */
      readonly reason: string;
      /** `delete` or `replace`. */
      readonly decision: string;
      readonly nodes: readonly string[];
      readonly replacements: number;
    }
  | { readonly t: number; readonly type: 'eviction'; readonly pod: string }
  | {
      readonly t: number;
      readonly type: 'interruption';
      readonly node: string;
      readonly instanceType: string;
      readonly zone: string;
    }
  | {
      readonly t: number;
      readonly type: 'launch-failed';
      readonly nodeClaim: string;
      readonly reason: string;
      readonly message: string;
    }
  | { readonly t: number; readonly type: 'node-failure'; readonly node: string }
  | {
      readonly t: number;
      readonly type: 'scenario';
      /** The scenario event type (`replicas`, `jobs`, `capacityError`, ...). */
      readonly event: string;
      readonly detail: string;
    };
