/**
 * What a scenario action works with.
 */
import type { SimJobs } from '@karpenter-ts/controllers';
import type { MeasureRecorder } from '../../measures/recorder.js';
import type { Scenario } from '../../scenario/types.js';
import type { ScalableWorkload } from '../../workloads/starting-objects.js';
import type { Autoscaler } from '../autoscaler.js';
import type { ClusterSetup } from '../cluster-setup.js';
import type { Timeline } from '../timeline.js';

/** The run an action changes. */
export interface ActionContext {
  readonly scenario: Scenario;
  readonly setup: ClusterSetup;
  readonly autoscaler: Autoscaler;
  readonly jobs: SimJobs;
  readonly recorder: MeasureRecorder;
  readonly timeline: Timeline;
  /** Scalable workloads by `namespace/name`. */
  readonly workloads: ReadonlyMap<string, ScalableWorkload>;
  /** Current replicas by `namespace/name`. */
  readonly replicas: Map<string, number>;
}

/** Clock ms of `seconds` after the scenario's time 0. */
export function msAt(ctx: ActionContext, seconds: number): number {
  return ctx.scenario.startMs + seconds * 1000;
}
