/**
 * A one-call scheduling harness for tests: builds a Scheduler, solves, re-checks the result
 * with {@link validateAssignment}, and returns it.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import { Scheduler } from '../scheduler.js';
import type { ExistingNodeInput, SchedulerOptions, SchedulingResults } from '../scheduler-types.js';
import type { TestInstanceType } from './builders.js';
import { validateAssignment } from './validate.js';

/** What a test environment holds; instance types default to every pool getting `instanceTypes`. */
export interface TestEnvironment {
  nodePools: NodePool[];
  /** Shared by every pool unless `instanceTypesByPool` names the pool. */
  instanceTypes: TestInstanceType[];
  instanceTypesByPool?: Record<string, TestInstanceType[]>;
  existingNodes?: ExistingNodeInput[];
  daemonSetPods?: Pod[];
  solver?: 'wasm' | 'ts';
  preferencePolicy?: 'Respect' | 'Ignore';
  minValuesPolicy?: 'Strict' | 'BestEffort';
  maxInstanceTypes?: number;
  /** The provider's well-known labels (see `SchedulerOptions.wellKnownLabels`). */
  wellKnownLabels?: string[];
  /** The pods' volumes (see `SchedulerOptions.podVolumes`). */
  podVolumes?: SchedulerOptions['podVolumes'];
}

/** The scheduler options of an environment. */
export function schedulerOptions(env: TestEnvironment): SchedulerOptions<TestInstanceType> {
  const instanceTypes = new Map<string, TestInstanceType[]>();
  for (const pool of env.nodePools) {
    const name = pool.metadata.name ?? '';
    instanceTypes.set(name, env.instanceTypesByPool?.[name] ?? env.instanceTypes);
  }
  return {
    nodePools: env.nodePools,
    instanceTypes,
    existingNodes: env.existingNodes ?? [],
    daemonSetPods: env.daemonSetPods ?? [],
    solver: env.solver ?? 'wasm',
    preferencePolicy: env.preferencePolicy ?? 'Respect',
    minValuesPolicy: env.minValuesPolicy ?? 'Strict',
    ...(env.maxInstanceTypes !== undefined ? { maxInstanceTypes: env.maxInstanceTypes } : {}),
    ...(env.wellKnownLabels !== undefined ? { wellKnownLabels: env.wellKnownLabels } : {}),
    ...(env.podVolumes !== undefined ? { podVolumes: env.podVolumes } : {}),
  };
}

/** Solves `pods` in `env` and validates the assignment (throws on any violation). */
export function schedule(env: TestEnvironment, pods: Pod[]): SchedulingResults<TestInstanceType> {
  const options = schedulerOptions(env);
  const results = new Scheduler(options).solve(pods);
  validateAssignment(results, { ...options, pods });
  return results;
}
