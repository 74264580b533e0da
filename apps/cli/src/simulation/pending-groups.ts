/**
 * Pending pods grouped by the scheduler's reason, so 63 pods held back by the same limit read
 * as one line instead of 63.
 */
import type { Pod } from '@karpenter-ts/api';

/** Pods that stay pending for the same reason, in the order the scheduler reported them. */
export interface PendingGroup {
  readonly reason: string;
  readonly pods: readonly Pod[];
}

/**
 * Groups `podErrors` by identical reason text: the largest group first, equal sizes in the order
 * their first pod was reported. Pods keep their reported order within a group.
 */
export function groupPendingPods(
  podErrors: readonly { pod: Pod; reason: string }[],
): PendingGroup[] {
  const groups = new Map<string, Pod[]>();
  for (const { pod, reason } of podErrors) {
    const list = groups.get(reason);
    if (list) list.push(pod);
    else groups.set(reason, [pod]);
  }
  // Array.prototype.sort is stable, so equal sizes keep first-reported order.
  return [...groups]
    .map(([reason, pods]) => ({ reason, pods }))
    .sort((a, b) => b.pods.length - a.pods.length);
}
