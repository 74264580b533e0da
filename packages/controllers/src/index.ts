export * from './clock.js';
export * from './conditions.js';
export * from './reconciler.js';
export * from './nodeclass/status.js';
export * from './pods.js';
export * from './limit-ranges.js';
export * from './kube/client.js';
export * from './kube/memory-client.js';
export * from './state/state-node.js';
export * from './state/cluster.js';
export * from './state/storage.js';
export * from './state/informer.js';
export * from './provisioning/batcher.js';
export * from './provisioning/pod-eligibility.js';
export * from './provisioning/volume-topology.js';
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
export * from './simulation/snapshot.js';
export * from './simulation/snapshot-load.js';
export * from './simulation/snapshot-machines.js';
export * from './simulation/snapshot-pass.js';
export * from './nodepool/validation/controller.js';
export * from './nodepool/readiness/controller.js';
export * from './nodepool/counter/resources.js';
export * from './nodepool/counter/controller.js';
export * from './pdb-limits.js';
export * from './disruption/budgets.js';
export * from './disruption/budget-mapping.js';
export * from './disruption/candidate.js';
export * from './disruption/command.js';
export * from './disruption/method.js';
export * from './disruption/observer.js';
export * from './disruption/simulation.js';
export * from './disruption/validation.js';
export * from './disruption/queue.js';
export * from './disruption/controller.js';
export { Emptiness, budgetReason } from './disruption/methods/emptiness.js';
export { Drift } from './disruption/methods/drift.js';
export {
  computeConsolidation,
  consolidationFilter,
  MinInstanceTypesForSpotToSpot,
  type ConsolidationOutcome,
} from './disruption/methods/consolidation.js';
export {
  SingleNodeConsolidation,
  roundRobinByPool,
} from './disruption/methods/single-node-consolidation.js';
export {
  MultiNodeConsolidation,
  MaxMultiNodeCandidates,
} from './disruption/methods/multi-node-consolidation.js';
export * from './nodeclaim/disruption/consolidatable.js';
export * from './nodeclaim/disruption/drift.js';
export * from './nodeclaim/disruption/controller.js';
export * from './nodeclaim/expiration/controller.js';
export * from './nodeclaim/podevents/controller.js';
export * from './nodepool/hash/controller.js';
export * from './simulation/replica-sets.js';
export * from './simulation/pod-lifecycle.js';
export * from './simulation/jobs.js';
export * from './simulation/daemon-sets.js';
export * from './node/health/controller.js';
export * from './go-duration.js';
export * from './nodeoverlay/adjusted-price.js';
export * from './nodeoverlay/instance-type-store.js';
export * from './nodeoverlay/evaluate.js';
export * from './nodeoverlay/overlaid-cloud-provider.js';
export * from './nodeoverlay/controller.js';
