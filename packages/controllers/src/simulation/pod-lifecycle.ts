/**
 * A stand-in for the kubelet's side of a pod's life, for the simulator: a pod whose
 * {@link RunSecondsAnnotation} says how long its work takes runs that long once bound (counted
 * from the moment it is bound, as its containers start then) and then completes: its phase
 * becomes `Succeeded`, which frees its requests for the schedulers and cluster state. A pod
 * deleted or evicted before then loses its progress (its controller makes a new one, which runs
 * the whole time again). Pods without the annotation run until something deletes them.
 */
import type { Pod } from '@karpenter-ts/api';
import type { Clock } from '../clock.js';
import type { MemoryKubeClient } from '../kube/memory-client.js';
import { isActive, podKey } from '../pods.js';

/** Pod annotation: seconds of work (a non-negative decimal number) before the pod completes. */
export const RunSecondsAnnotation = 'sim.karpenter-ts.io/run-seconds';

/** Options of {@link SimPodLifecycle}. */
export interface SimPodLifecycleOptions {
  readonly client: MemoryKubeClient;
  readonly clock: Clock;
  /** Delete a pod once it has completed (a Job's `ttlSecondsAfterFinished: 0`); default false. */
  readonly deleteCompleted?: boolean;
}

/** See the module comment. Call {@link start} before the first bind it should see. */
export class SimPodLifecycle {
  /** By pod UID: when it completes (clock ms) and its key. */
  readonly #running = new Map<
    string,
    { at: number; key: string; namespace: string; name: string }
  >();
  #stop: (() => void) | undefined;

  constructor(private readonly o: SimPodLifecycleOptions) {}

  /** Starts watching pods: a bind starts a pod's run, a deletion forgets it. */
  start(): void {
    this.#stop ??= this.o.client.watch('Pod', (event) => {
      const pod = event.object;
      const uid = pod.metadata?.uid ?? '';
      if (event.type === 'DELETED' || !isActive(pod)) {
        this.#running.delete(uid);
        return;
      }
      if (!pod.spec?.nodeName || this.#running.has(uid)) return;
      const seconds = runSeconds(pod);
      if (seconds === undefined) return;
      this.#running.set(uid, {
        at: this.o.clock.now() + seconds * 1000,
        key: podKey(pod),
        namespace: pod.metadata?.namespace ?? 'default',
        name: pod.metadata?.name ?? '',
      });
    });
  }

  /** Stops watching. */
  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
  }

  /**
   * Completes every running pod whose work is done by now (phase `Succeeded`; deleted too with
   * `deleteCompleted`), in the order they complete. Returns them as they were just before.
   */
  async reconcile(): Promise<Pod[]> {
    const now = this.o.clock.now();
    const due = [...this.#running.entries()]
      .filter(([, r]) => r.at <= now)
      .sort(
        ([ua, a], [ub, b]) =>
          a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || (ua < ub ? -1 : 1),
      );
    const done: Pod[] = [];
    for (const [uid, r] of due) {
      this.#running.delete(uid);
      const pod = await this.o.client.get('Pod', { namespace: r.namespace, name: r.name });
      if (pod === undefined || pod.metadata?.uid !== uid || !isActive(pod)) continue;
      const next = structuredClone(pod);
      next.status = { ...(next.status ?? {}), phase: 'Succeeded' };
      await this.o.client.updateStatus('Pod', next);
      if (this.o.deleteCompleted === true)
        await this.o.client.delete('Pod', { namespace: r.namespace, name: r.name });
      done.push(pod);
    }
    return done;
  }

  /** Clock milliseconds of the next completion, or undefined when no pod is running one. */
  nextCompletionMs(): number | undefined {
    let next: number | undefined;
    for (const r of this.#running.values()) if (next === undefined || r.at < next) next = r.at;
    return next;
  }

  /** Pods currently running toward a completion. */
  runningCount(): number {
    return this.#running.size;
  }
}

/** The pod's run time in seconds from {@link RunSecondsAnnotation}, or undefined. */
export function runSeconds(pod: Pod): number | undefined {
  const value = pod.metadata?.annotations?.[RunSecondsAnnotation];
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
