/**
 * What the node claim lifecycle sub-reconcilers share, and the shape of their results.
 */
import type { CloudProvider } from '@karpenter-ts/cloudprovider';
import type { Clock } from '../../clock.js';
import type { KubeClient } from '../../kube/client.js';

/** Dependencies of the lifecycle sub-reconcilers. */
export interface LifecycleContext {
  readonly client: KubeClient;
  readonly cloudProvider: CloudProvider;
  readonly clock: Clock;
}

/** The result of one sub-reconciler. */
export interface StepResult {
  /** Seconds until this step wants another look; undefined: none. */
  readonly requeueAfter?: number;
  /** The step deleted the NodeClaim; later steps must not run and nothing is written back. */
  readonly deleted?: boolean;
}

/** Nothing more to do in this step. */
export const stepDone: StepResult = {};
