/**
 * The scenario file's data as the schema admits it (before times are turned into seconds).
 */
import type { Toleration } from '@karpenter-ts/api';

/** A duration as written: seconds, or a string such as `1h30m`. */
export type DurationValue = number | string;

/** Fields an interruption or failure selects nodes by. */
interface SelectorFields {
  instanceType?: string;
  zone?: string;
  nodePool?: string;
}

/** One event as written. */
export type EventData =
  | {
      type: 'replicas';
      at: DurationValue;
      workload?: string;
      workloads?: string[];
      replicas: number;
    }
  | {
      type: 'replicasCurve';
      workloads: string[];
      from?: DurationValue;
      to?: DurationValue;
      every?: DurationValue;
      minReplicas?: number;
      maxReplicas?: number;
      curve: {
        shape?: 'sine' | 'step' | 'linear';
        period?: DurationValue;
        noise?: number;
        points: { at: DurationValue; value: number }[];
      };
    }
  | {
      type: 'jobs';
      name: string;
      at: DurationValue;
      repeat?: DurationValue;
      count?: number;
      completions?: number;
      parallelism?: number;
      runTime: DurationValue;
      runTimeJitter?: number;
      namespace?: string;
      requests: Record<string, string | number>;
      labels?: Record<string, string>;
      nodeSelector?: Record<string, string>;
      tolerations?: Toleration[];
    }
  | { type: 'trace'; file: string }
  | ({
      type: 'spotInterruptions';
      ratePerHour?: number;
      from?: DurationValue;
      to?: DurationValue;
      at?: DurationValue[];
      notice?: DurationValue;
    } & SelectorFields)
  | {
      type: 'capacityError';
      instanceType?: string;
      zone?: string;
      capacityType?: 'on-demand' | 'spot';
      from: DurationValue;
      to: DurationValue;
    }
  | { type: 'nodePoolChange'; at: DurationValue; nodePool: string; patch: Record<string, unknown> }
  | {
      type: 'nodeClassChange';
      at: DurationValue;
      nodeClass: string;
      patch: Record<string, unknown>;
    }
  | ({ type: 'nodeFailure'; at: DurationValue; count?: number } & SelectorFields);

/** Node start delays as written. */
export interface StartupData {
  launch?: DurationValue;
  boot?: DurationValue;
  registration?: DurationValue;
}

/** The whole file as written. */
export interface ScenarioData {
  apiVersion: string;
  kind: string;
  name: string;
  description?: string;
  seed?: number;
  start?: string;
  duration: DurationValue;
  sample?: DurationValue;
  clouds?: { cloud: 'azure' | 'aws' | 'sim'; region?: string; manifests?: string[] }[];
  manifests: string[];
  nodeStartup?: Partial<Record<'azure' | 'aws' | 'sim', StartupData>>;
  karpenter?: { spotToSpotConsolidation?: boolean; nodeRepair?: boolean; nodeOverlay?: boolean };
  autoscalers?: ('karpenter' | 'cluster-autoscaler')[];
  clusterAutoscaler?: {
    expander?: 'random' | 'least-waste' | 'price';
    nodeGroups?: {
      nodePool: string;
      instanceTypes: string[];
      capacityType?: 'on-demand' | 'spot';
      minSize?: number;
      maxSize?: number;
    }[];
  };
  events?: EventData[];
}
