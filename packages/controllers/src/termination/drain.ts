/**
 * Draining a node (upstream `node/termination/terminator/terminator.go` and `eviction.go`).
 *
 * Pods waiting for eviction are the node's pods that are not terminal, do not tolerate the
 * `karpenter.sh/disrupted:NoSchedule` taint, are not stuck terminating (more than 1 min past
 * their deletionTimestamp) and are not mirror pods. They leave in four tiers, one tier at a time:
 * non-critical non-DaemonSet, non-critical DaemonSet, critical non-DaemonSet, critical DaemonSet
 * (critical = `system-cluster-critical` / `system-node-critical`).
 *
 * Each pod goes through the Eviction API (UID precondition), so PodDisruptionBudgets hold:
 * 404/409 ⇒ gone, 429 or "more than one PodDisruptionBudget" ⇒ event and retry. Pods with an
 * active `karpenter.sh/do-not-disrupt` are not evicted. Once the NodeClaim's termination
 * deadline (terminationGracePeriod) draws near, a pod is deleted directly, bypassing its budget
 * and do-not-disrupt, when `now > deadline − pod.terminationGracePeriodSeconds`, with the time
 * left as its grace period (at least 1 s).
 */
import type { Pod } from '@karpenter-ts/api';
import { Taints } from '@karpenter-ts/api';
import { tolerates } from '@karpenter-ts/scheduling';
import { timeMs } from '../clock.js';
import { isNotFound, KubeApiError, TooManyRequestsError, type KubeClient } from '../kube/client.js';
import { hasDoNotDisrupt, isCritical, isDaemonSetPod, isMirrorPod, isTerminal } from '../pods.js';

/** A pod terminating for longer than this (seconds) no longer blocks the drain. */
export const STUCK_TERMINATING_SECONDS = 60;

/** Pods that still have to leave the node before it is drained. */
export function podsWaitingEviction(pods: readonly Pod[], nowMs: number): Pod[] {
  return pods.filter((pod) => {
    if (isTerminal(pod) || isMirrorPod(pod)) return false;
    if ((pod.spec?.tolerations ?? []).some((t) => tolerates(t, Taints.Disrupted))) return false;
    const deleted = timeMs(pod.metadata?.deletionTimestamp);
    if (deleted !== undefined && nowMs - deleted > STUCK_TERMINATING_SECONDS * 1000) return false;
    return true;
  });
}

/** Tier 0..3 of a pod (lower tiers leave first). */
export function drainTier(pod: Pod): number {
  return (isCritical(pod) ? 2 : 0) + (isDaemonSetPod(pod) ? 1 : 0);
}

/** What one drain pass did. */
export interface DrainOutcome {
  /** Pods still waiting (the node is not drained while any remain). */
  readonly remaining: number;
  /** Pods an eviction request was sent for and accepted. */
  readonly evicted: readonly string[];
  /** Pods deleted directly because the termination deadline was near. */
  readonly forceDeleted: readonly string[];
  /** Pods whose eviction a PodDisruptionBudget refused (429 or several budgets). */
  readonly blocked: readonly string[];
}

/**
 * One drain pass over `pods` (the node's pods): force-deletes pods past the deadline, then
 * evicts the first non-empty tier. `deadlineMs` is the NodeClaim termination timestamp, if any.
 */
export async function drain(
  client: KubeClient,
  pods: readonly Pod[],
  nowMs: number,
  deadlineMs: number | undefined,
): Promise<DrainOutcome> {
  const waiting = podsWaitingEviction(pods, nowMs);
  const evicted: string[] = [];
  const forceDeleted: string[] = [];
  const blocked: string[] = [];
  const evictable: Pod[] = [];
  for (const pod of waiting) {
    if (deadlineMs !== undefined && pastDeadline(pod, nowMs, deadlineMs)) {
      const grace = Math.max(1, Math.floor((deadlineMs - nowMs) / 1000));
      try {
        await client.delete(
          'Pod',
          { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? 'default' },
          { gracePeriodSeconds: grace },
        );
        forceDeleted.push(name(pod));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    } else if (pod.metadata?.deletionTimestamp === undefined) {
      evictable.push(pod);
    }
  }
  const tier = Math.min(...evictable.map(drainTier));
  for (const pod of evictable.filter((p) => drainTier(p) === tier)) {
    if (hasDoNotDisrupt(pod, nowMs)) {
      blocked.push(name(pod));
      continue;
    }
    try {
      await client.evict(
        { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? 'default' },
        pod.metadata?.uid ? { uid: pod.metadata.uid } : {},
      );
      evicted.push(name(pod));
    } catch (err) {
      if (
        err instanceof TooManyRequestsError ||
        (err instanceof KubeApiError && err.code === 500)
      ) {
        blocked.push(name(pod));
        client.recordEvent({
          involved: {
            kind: 'Pod',
            name: pod.metadata?.name ?? '',
            namespace: pod.metadata?.namespace ?? 'default',
          },
          type: 'Warning',
          reason: 'FailedEviction',
          message: `Evicting pod failed: ${err.message}`,
        });
      } else if (!(err instanceof KubeApiError && (err.code === 404 || err.code === 409))) {
        throw err;
      }
    }
  }
  const gone = new Set([...evicted, ...forceDeleted]);
  return {
    remaining: waiting.filter((p) => !gone.has(name(p))).length,
    evicted,
    forceDeleted,
    blocked,
  };
}

/** `now > deadline − pod.terminationGracePeriodSeconds`, or terminating past the deadline. */
function pastDeadline(pod: Pod, nowMs: number, deadlineMs: number): boolean {
  const podGrace = (pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
  if (nowMs > deadlineMs - podGrace) return true;
  const deleted = timeMs(pod.metadata?.deletionTimestamp);
  const graceEnd =
    deleted === undefined
      ? undefined
      : deleted + (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return graceEnd !== undefined && graceEnd > deadlineMs;
}

function name(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}
