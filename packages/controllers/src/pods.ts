/**
 * Pod classification the controllers share (upstream `pkg/utils/pod`): owners, terminal and
 * terminating pods, do-not-disrupt, priority classes. Pure functions of a Pod.
 */
import type { Pod } from '@karpenter-ts/api';
import { Annotations } from '@karpenter-ts/api';
import { timeMs } from './clock.js';
import { parseGoDuration } from './go-duration.js';

/** `namespace/name`, the key pods are tracked by. */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}

/** The pod's controller (or first) owner kind, e.g. `ReplicaSet`, `DaemonSet`, `Node`. */
export function ownerKind(pod: Pod): string | undefined {
  const owners = pod.metadata?.ownerReferences ?? [];
  return (owners.find((o) => o.controller) ?? owners[0])?.kind;
}

/** Owned by a DaemonSet. */
export function isDaemonSetPod(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
}

/** A static (mirror) pod: owned by its Node, or annotated by the kubelet as a mirror. */
export function isMirrorPod(pod: Pod): boolean {
  return (
    (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Node') ||
    pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined
  );
}

/** Phase Succeeded or Failed: the pod will not run again. */
export function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** Has a deletionTimestamp. */
export function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined;
}

/** Neither terminal nor terminating. */
export function isActive(pod: Pod): boolean {
  return !isTerminal(pod) && !isTerminating(pod);
}

/** Owned by a StatefulSet. */
export function isStatefulSetPod(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some((o) => o.kind === 'StatefulSet');
}

/** `system-cluster-critical` or `system-node-critical` priority class. */
export function isCritical(pod: Pod): boolean {
  const pc = pod.spec?.priorityClassName;
  return pc === 'system-cluster-critical' || pc === 'system-node-critical';
}

/**
 * The pod's `karpenter.sh/do-not-disrupt` annotation is active at `nowMs`: `"true"`, or a
 * positive Go duration (`1.5h`, `90m`) not yet elapsed since the pod started (invalid values are
 * ignored, as upstream does; upstream also records an event, which we do not).
 */
export function hasDoNotDisrupt(pod: Pod, nowMs: number): boolean {
  const value = pod.metadata?.annotations?.[Annotations.DoNotDisrupt];
  if (value === undefined) return false;
  if (value === 'true') return true;
  // Upstream reads the value with Go's time.ParseDuration ("1.5h", "90m", "300s").
  const seconds = parseGoDuration(value);
  if (seconds === undefined || seconds <= 0) return false;
  const start = timeMs(pod.status?.startTime) ?? timeMs(pod.metadata?.creationTimestamp);
  return start !== undefined && nowMs < start + seconds * 1000;
}

/**
 * Pods on a node going away that must find a new home (upstream `IsReschedulable`): active (or a
 * terminating StatefulSet pod, whose replacement keeps its identity), not DaemonSet or mirror.
 */
export function isReschedulable(pod: Pod): boolean {
  return (
    (isActive(pod) || (isStatefulSetPod(pod) && isTerminating(pod))) &&
    !isDaemonSetPod(pod) &&
    !isMirrorPod(pod)
  );
}
