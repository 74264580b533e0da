/**
 * Reconcile workers per work queue, from `--cpu-requests` as upstream scales them:
 * the CPU count is ceil(millicores / 1000), and a controller's workers
 * grow linearly from its minimum at 1 core to its maximum at 60 cores (`LinearScaleReconciles`).
 *
 * | queue | workers (1 core → 60 cores) | upstream controller |
 * | --- | --- | --- |
 * | nodeclaim | 1000 → 5000 | NodeClaim lifecycle |
 * | termination | 100 → 5000 | node termination |
 * | pod-trigger | 10 → 1000 | provisioning pod trigger |
 * | nodepool-counter | 10 → 1000 | NodePool counter |
 * | nodeclaim-disruption | 10 → 1000 | NodeClaim disruption conditions and expiration |
 * | node-health | 10 → 1000 | node repair (gate NodeRepair) |
 * | nodepool, nodeclass, node-trigger | 10 (fixed) | ours; not scaled |
 * | provisioner, garbagecollection, disruption, disruption-queue, nodeoverlay | 1 | singletons |
 *
 * A worker here is an async reconcile in flight, not a thread: the bound is how many keys of a
 * queue are reconciled at once (a launch waits on the cloud for its whole create, so the
 * lifecycle's bound is how many machines launch at once). Upstream's scheduler also runs
 * ceil(millicores / 1000) goroutines inside one scheduling pass; our solver is single-threaded,
 * so that part has no counterpart.
 */

/** The manager's work queues. */
export type QueueName =
  | 'nodepool'
  | 'nodepool-counter'
  | 'nodeclass'
  | 'provisioner'
  | 'pod-trigger'
  | 'node-trigger'
  | 'nodeclaim'
  | 'termination'
  | 'garbagecollection'
  | 'nodeclaim-disruption'
  | 'disruption'
  | 'disruption-queue'
  | 'node-health'
  | 'nodeoverlay';

/** Workers (keys reconciled at once) of each queue. */
export type QueueWorkers = Readonly<Record<QueueName, number>>;

/** Cores at which upstream's linear scaling reaches its maximum. */
const MaxScaleCores = 60;

/** Upstream's CPU count: ceil(millicores / 1000), at least 1. */
export function cpuCount(cpuRequestsMillicores: number): number {
  return Math.max(1, Math.ceil(cpuRequestsMillicores / 1000));
}

/**
 * Upstream's `LinearScaleReconciles`: `min` workers at 1 core, `max` at 60 cores and above,
 * linear in between (rounded down).
 */
export function linearScaleWorkers(cores: number, min: number, max: number): number {
  const c = Math.min(Math.max(cores, 1), MaxScaleCores);
  return min + Math.floor(((max - min) * (c - 1)) / (MaxScaleCores - 1));
}

/** The workers of every queue for `--cpu-requests` in millicores (see the module table). */
export function queueWorkers(cpuRequestsMillicores: number): QueueWorkers {
  const cores = cpuCount(cpuRequestsMillicores);
  return {
    nodepool: 10,
    'nodepool-counter': linearScaleWorkers(cores, 10, 1000),
    nodeclass: 10,
    provisioner: 1,
    'pod-trigger': linearScaleWorkers(cores, 10, 1000),
    'node-trigger': 10,
    nodeclaim: linearScaleWorkers(cores, 1000, 5000),
    termination: linearScaleWorkers(cores, 100, 5000),
    garbagecollection: 1,
    'nodeclaim-disruption': linearScaleWorkers(cores, 10, 1000),
    disruption: 1,
    'disruption-queue': 1,
    'node-health': linearScaleWorkers(cores, 10, 1000),
    nodeoverlay: 1,
  };
}
