/**
 * Pod events (upstream `nodeclaim/podevents/controller.go`):
 * records `status.lastPodEventTime` on the NodeClaim of a node when a pod that is not a DaemonSet
 * pod is bound to it, goes terminal, starts terminating or is deleted there, at most once every
 * 10 s per NodeClaim. `consolidateAfter` counts from this time.
 *
 * It reads watch events and keeps each pod's last state to see transitions, seeded from a list
 * of the pods when it starts (a watch does not replay them). Difference from upstream (on
 * purpose): pods already bound when the controller starts are not events (upstream reconciles
 * them as creations and so restarts every node's consolidateAfter wait on restart).
 */
import type { Pod } from '@karpenter-ts/api';
import { nowDate, timeMs, type Clock } from '../../clock.js';
import { isConflict, isNotFound, type KubeClient, type WatchEvent } from '../../kube/client.js';
import { isDaemonSetPod, isTerminal, isTerminating, podKey } from '../../pods.js';

/** Seconds within which further pod events on the same NodeClaim are not recorded. */
export const PodEventDedupeSeconds = 10;

interface Seen {
  readonly nodeName: string;
  readonly terminal: boolean;
  readonly terminating: boolean;
}

/** Dependencies of {@link PodEvents}. */
export interface PodEventsOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
}

/** See the module comment. */
export class PodEvents {
  readonly #seen = new Map<string, Seen>();
  readonly #startedAt: number;
  #seeded: Promise<void> = Promise.resolve();

  constructor(private readonly o: PodEventsOptions) {
    this.#startedAt = o.clock.now();
  }

  /**
   * Subscribes to pod watch events and seeds each pod's state from a list (taken now, so events
   * after it are transitions from it); returns the unsubscribe function.
   */
  start(): () => void {
    const unwatch = this.o.client.watch('Pod', (e) => {
      void this.observe(e).catch(() => undefined); // Best effort, as the dedupe window is.
    });
    const listed = this.o.client.list('Pod');
    this.#seeded = listed.then(
      (pods) => {
        for (const pod of pods) {
          const key = podKey(pod);
          if (!this.#seen.has(key)) this.#seen.set(key, stateOf(pod));
        }
      },
      () => undefined,
    );
    return unwatch;
  }

  /** Handles one pod watch event (see the module comment). */
  async observe(event: WatchEvent<'Pod'>): Promise<void> {
    await this.#seeded;
    const pod = event.object;
    const key = podKey(pod);
    const before = this.#seen.get(key);
    const now = stateOf(pod);
    if (event.type === 'DELETED') this.#seen.delete(key);
    else this.#seen.set(key, now);
    if (isDaemonSetPod(pod) || now.nodeName === '') return;
    if (!isPodEvent(event.type, before, now, pod, this.#startedAt)) return;
    await this.#record(now.nodeName);
  }

  async #record(nodeName: string): Promise<void> {
    const { client, clock } = this.o;
    const node = await client.get('Node', { name: nodeName });
    const providerID = node?.spec?.providerID;
    if (!providerID) return;
    const [nodeClaim] = await client.list('NodeClaim', { providerID });
    if (nodeClaim === undefined) return;
    const last = timeMs(nodeClaim.status?.lastPodEventTime);
    if (last !== undefined && clock.now() - last < PodEventDedupeSeconds * 1000) return;
    const next = structuredClone(nodeClaim);
    next.status = { ...(next.status ?? {}), lastPodEventTime: nowDate(clock).toISOString() };
    try {
      await client.updateStatus('NodeClaim', next);
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }
}

function stateOf(pod: Pod): Seen {
  return {
    nodeName: pod.spec?.nodeName ?? '',
    terminal: isTerminal(pod),
    terminating: isTerminating(pod),
  };
}

function isPodEvent(
  type: WatchEvent<'Pod'>['type'],
  before: Seen | undefined,
  now: Seen,
  pod: Pod,
  startedAt: number,
): boolean {
  if (type === 'DELETED') return !(before?.terminal ?? false) && !(before?.terminating ?? false);
  if (before === undefined) {
    // First sight: an event only for a pod created bound after we started.
    return (timeMs(pod.metadata?.creationTimestamp) ?? 0) >= startedAt;
  }
  const bound = before.nodeName === '' && now.nodeName !== '';
  const terminal = !before.terminal && now.terminal;
  const terminating = !before.terminating && now.terminating;
  return bound || terminal || terminating;
}
