/**
 * A scenario once read and checked: every time in seconds from the scenario's start (time 0),
 * every path resolved against the scenario file's folder, trace files read into rows. What the
 * YAML looks like is in `schema.ts` and docs/simulator.md.
 */
import type { Toleration } from '@karpenter-ts/api';
import type { CloudName, ManifestDocument } from '@karpenter-ts/cli';

/** Where a scenario value came from, for messages that point back at the file. */
export interface SourceRef {
  readonly file: string;
  readonly line: number;
  /** Field path inside the scenario, e.g. `events[2].workload`. */
  readonly field: string;
}

/** One cloud and region to run the scenario on. */
export interface CloudRun {
  readonly cloud: CloudName;
  /** The cloud's default region (eastus, us-east-1) when the scenario names none. */
  readonly region: string | undefined;
  /** Manifests only this cloud's runs read (its NodePools and NodeClasses), resolved. */
  readonly manifests: readonly string[];
  /** The objects read from them. */
  readonly documents: readonly ManifestDocument[];
}

/** Seconds each step of a node's start takes; they add up before the Node registers. */
export interface NodeStartup {
  /** From the NodeClaim's launch request until the cloud has the machine running. */
  readonly launchSeconds: number;
  /** From the machine running until the kubelet starts. */
  readonly bootSeconds: number;
  /** From the kubelet starting until the Node is registered and Ready. */
  readonly registrationSeconds: number;
}

/** Karpenter settings of the run (feature gates). */
export interface KarpenterSettings {
  readonly spotToSpotConsolidation: boolean;
  readonly nodeRepair: boolean;
  /** Gate `NodeOverlay` (default false, as upstream): the manifests' NodeOverlays apply. */
  readonly nodeOverlay: boolean;
}

/** The autoscalers a scenario can run under. */
export const AUTOSCALER_NAMES = ['karpenter', 'cluster-autoscaler'] as const;
export type AutoscalerName = (typeof AUTOSCALER_NAMES)[number];

/** Settings of the Cluster Autoscaler baseline (see docs/simulator.md). */
export interface ClusterAutoscalerScenario {
  /** CA's `--expander`: `random` (CA's default), `least-waste` or `price`. */
  readonly expander: 'random' | 'least-waste' | 'price';
  /** Node groups per NodePool; undefined: one group per size of each NodePool's cheapest family. */
  readonly nodeGroups?: readonly {
    readonly nodePool: string;
    readonly instanceTypes: readonly string[];
    readonly capacityType?: 'on-demand' | 'spot';
    readonly minSize?: number;
    readonly maxSize?: number;
  }[];
}

/** A daily (or `periodSeconds`) profile: a multiplier of a workload's replicas over time. */
export interface Curve {
  /** `step` holds each point's value until the next; `linear` interpolates; `sine` eases (half a cosine) between points. */
  readonly shape: 'sine' | 'step' | 'linear';
  readonly periodSeconds: number;
  /** Sorted by `atSeconds`, each in [0, period); at least one. */
  readonly points: readonly { readonly atSeconds: number; readonly value: number }[];
  /** Standard deviation of the multiplicative noise (0: none). */
  readonly noise: number;
}

/** Replicas of workloads set once. */
export interface ReplicasEvent {
  readonly type: 'replicas';
  readonly atSeconds: number;
  /** `namespace/name` of workloads in the manifests. */
  readonly workloads: readonly string[];
  readonly replicas: number;
  readonly source: SourceRef;
}

/** Replicas of workloads following a curve: `round(base × curve(t) × noise)`, re-evaluated every `everySeconds`. */
export interface ReplicasCurveEvent {
  readonly type: 'replicasCurve';
  /** `namespace/name`; every scalable workload when the scenario said `"*"`. */
  readonly workloads: readonly string[];
  readonly fromSeconds: number;
  readonly toSeconds: number;
  readonly everySeconds: number;
  readonly curve: Curve;
  readonly minReplicas: number;
  readonly maxReplicas: number | undefined;
  readonly source: SourceRef;
}

/** The pod a Job or trace row runs. */
export interface PodShape {
  readonly namespace: string;
  /** Canonical quantities as strings, e.g. `{cpu: '500m', memory: '1Gi', 'nvidia.com/gpu': '1'}`. */
  readonly requests: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
}

/** A wave of Jobs (once, or every `repeatSeconds`). */
export interface JobsEvent {
  readonly type: 'jobs';
  readonly name: string;
  readonly atSeconds: number;
  readonly repeatSeconds: number | undefined;
  /** Jobs per wave. */
  readonly count: number;
  /** Pods that must succeed per Job. */
  readonly completions: number;
  readonly parallelism: number;
  readonly runSeconds: number;
  /** Each pod's run time is `runSeconds × (1 ± jitter)`, uniform, seeded. */
  readonly runJitter: number;
  readonly pod: PodShape;
  readonly source: SourceRef;
}

/** One row of a trace file. */
export interface TraceRow {
  readonly arrivalSeconds: number;
  readonly runSeconds: number;
  readonly pod: PodShape;
  /** `Kind/name` of the pod's owner, or undefined for a bare pod. */
  readonly owner: { readonly kind: string; readonly name: string } | undefined;
  /** 1-based line in the trace file. */
  readonly line: number;
}

/** Pods from a CSV trace. */
export interface TraceEvent {
  readonly type: 'trace';
  readonly file: string;
  readonly rows: readonly TraceRow[];
  readonly source: SourceRef;
}

/** Which nodes an interruption or failure may hit (every field optional). */
export interface NodeSelector {
  readonly instanceType?: string;
  readonly zone?: string;
  readonly nodePool?: string;
}

/** Spot reclaims: at given times, or a Poisson process of `ratePerHour` over the run. */
export interface SpotInterruptionsEvent {
  readonly type: 'spotInterruptions';
  /** The given times, sorted (empty when a rate is given). */
  readonly atSeconds: readonly number[];
  /** Interruptions per hour across the matching spot nodes (a Poisson process drawn from the seed). */
  readonly ratePerHour: number | undefined;
  /** The window a rate applies in, seconds. */
  readonly fromSeconds: number;
  readonly toSeconds: number;
  /** Seconds between the interruption notice and the reclaim; undefined ⇒ the cloud's (AWS 120 s, Azure 30 s). */
  readonly noticeSeconds: number | undefined;
  readonly selector: NodeSelector;
  readonly source: SourceRef;
}

/** Launches on matching offerings fail with insufficient capacity during a window. */
export interface CapacityErrorEvent {
  readonly type: 'capacityError';
  readonly instanceType: string | undefined;
  readonly zone: string | undefined;
  readonly capacityType: 'on-demand' | 'spot' | undefined;
  readonly fromSeconds: number;
  readonly toSeconds: number;
  readonly source: SourceRef;
}

/** A JSON merge patch applied to a NodePool or NodeClass at a time (drift). */
export interface ChangeEvent {
  readonly type: 'nodePoolChange' | 'nodeClassChange';
  readonly atSeconds: number;
  readonly name: string;
  readonly patch: Readonly<Record<string, unknown>>;
  readonly source: SourceRef;
}

/** Nodes stop responding (kubelet gone, Ready=Unknown). */
export interface NodeFailureEvent {
  readonly type: 'nodeFailure';
  readonly atSeconds: number;
  readonly count: number;
  readonly selector: NodeSelector;
  readonly source: SourceRef;
}

/** Every timeline event. */
export type ScenarioEvent =
  | ReplicasEvent
  | ReplicasCurveEvent
  | JobsEvent
  | TraceEvent
  | SpotInterruptionsEvent
  | CapacityErrorEvent
  | ChangeEvent
  | NodeFailureEvent;

/** A scenario, read and checked (see the module comment). */
export interface Scenario {
  readonly name: string;
  /** The scenario file as named by the user. */
  readonly file: string;
  readonly seed: number;
  /** Clock time of time 0, ms since the epoch. */
  readonly startMs: number;
  readonly durationSeconds: number;
  readonly sampleSeconds: number;
  readonly clouds: readonly CloudRun[];
  /** Manifest files and folders, resolved. */
  readonly manifests: readonly string[];
  /** The objects read from them. */
  readonly documents: readonly ManifestDocument[];
  /** Per cloud overrides of the node start delays (missing parts take the cloud's defaults). */
  readonly nodeStartup: Readonly<Partial<Record<CloudName, Partial<NodeStartup>>>>;
  readonly karpenter: KarpenterSettings;
  /** The autoscalers each cloud runs under, in order (default: Karpenter alone). */
  readonly autoscalers: readonly AutoscalerName[];
  readonly clusterAutoscaler: ClusterAutoscalerScenario;
  /** In scenario order. */
  readonly events: readonly ScenarioEvent[];
}
