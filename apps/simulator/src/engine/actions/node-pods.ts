/**
 * Pods that die with their node.
 */
import { isDaemonSetPod } from '@karpenter-ts/controllers';
import type { ActionContext } from './context.js';

/** Deletes the pods bound to `nodeName` (DaemonSet pods are left to pod GC); returns how many. */
export async function deletePodsOn(ctx: ActionContext, nodeName: string): Promise<number> {
  const { client } = ctx.setup.cluster;
  let n = 0;
  for (const pod of client.view('Pod')) {
    if (pod.spec?.nodeName !== nodeName || isDaemonSetPod(pod)) continue;
    await client.delete('Pod', {
      namespace: pod.metadata?.namespace ?? 'default',
      name: pod.metadata?.name ?? '',
    });
    n++;
  }
  return n;
}
