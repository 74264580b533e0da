export * from './clock.js';
export * from './conditions.js';
export * from './reconciler.js';
export * from './pods.js';
export * from './kube/client.js';
export * from './kube/memory-client.js';
export * from './state/state-node.js';
export * from './state/cluster.js';
export * from './state/informer.js';
export * from './provisioning/batcher.js';
export * from './provisioning/pod-eligibility.js';
export * from './provisioning/nodeclaim-builder.js';
export * from './provisioning/provisioner.js';
export * from './provisioning/trigger.js';
export type { LifecycleContext, StepResult } from './nodeclaim/lifecycle/context.js';
export { Launch, LAUNCH_CACHE_SECONDS } from './nodeclaim/lifecycle/launch.js';
export { Registration, syncNode } from './nodeclaim/lifecycle/registration.js';
export { Initialization, whyNotInitialized } from './nodeclaim/lifecycle/initialization.js';
export {
  Liveness,
  LAUNCH_TIMEOUT_SECONDS,
  REGISTRATION_TIMEOUT_SECONDS,
} from './nodeclaim/lifecycle/liveness.js';
export { Finalization, terminationTimestamp } from './nodeclaim/lifecycle/finalization.js';
export { NodeClaimLifecycle, CONFLICT_REQUEUE_SECONDS } from './nodeclaim/lifecycle/controller.js';
export * from './termination/drain.js';
export {
  NodeTermination,
  DRAIN_REQUEUE_SECONDS,
  MIN_DRAIN_SECONDS,
  INSTANCE_TERMINATION_REQUEUE_SECONDS,
  type NodeTerminationOptions,
} from './termination/controller.js';
export * from './garbagecollection/controller.js';
export * from './simulation/kubelet.js';
export * from './simulation/kube-scheduler.js';
export * from './simulation/controller-loop.js';
export * from './nodepool/validation/controller.js';
export * from './nodepool/readiness/controller.js';
export * from './nodepool/counter/resources.js';
export * from './nodepool/counter/controller.js';
