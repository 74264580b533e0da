/**
 * The scheduling queue (karpenter-core.md 2.4, upstream `queue.go`): pods ordered by cpu request
 * (desc), memory request (desc), creation time (asc), uid (asc); failed pods go to the back, and
 * the loop ends when a pod comes round again with no pod scheduled since it was last pushed.
 */
import type { PodData } from './pod-data.js';

/** Creation time in ms, kept on the pod: the same pods are sorted again in every batch. */
function creationMillis(d: PodData): number {
  return (d.memo.createdMillis ??= parseCreation(d));
}

function parseCreation(d: PodData): number {
  const ts = d.pod.metadata?.creationTimestamp as Date | string | undefined;
  if (ts === undefined) return 0;
  const ms = ts instanceof Date ? ts.getTime() : Date.parse(ts);
  return Number.isNaN(ms) ? 0 : ms;
}

/** Sorts pods into queue order (a new array). */
export function queueOrder(pods: readonly PodData[]): PodData[] {
  const keyed = pods.map((d) => ({
    d,
    cpu: d.requests['cpu'] ?? 0,
    memory: d.requests['memory'] ?? 0,
    created: creationMillis(d),
  }));
  keyed.sort(
    (a, b) =>
      b.cpu - a.cpu ||
      b.memory - a.memory ||
      a.created - b.created ||
      (a.d.uid < b.d.uid ? -1 : a.d.uid > b.d.uid ? 1 : 0),
  );
  return keyed.map((k) => k.d);
}

/** A FIFO of pods with upstream's no-progress termination rule. */
export class SchedulingQueue {
  private items: PodData[];
  private head = 0;
  /** Queue length right after each pod was last pushed back. */
  private readonly lastLength = new Map<PodData, number>();

  constructor(pods: readonly PodData[]) {
    this.items = queueOrder(pods);
  }

  /** Pods still queued. */
  get length(): number {
    return this.items.length - this.head;
  }

  /**
   * The next pod, or undefined when the queue is empty or the next pod was pushed back at the
   * current length (a full cycle without progress).
   */
  pop(): PodData | undefined {
    if (this.head >= this.items.length) return undefined;
    const next = this.items[this.head] as PodData;
    if (this.lastLength.size > 0 && this.lastLength.get(next) === this.length) return undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return next;
  }

  /** Puts a pod that failed this round at the back. */
  pushBack(pod: PodData): void {
    this.items.push(pod);
    this.lastLength.set(pod, this.length);
  }

  /** The pods left (after `pop` returned undefined). */
  remaining(): PodData[] {
    return this.items.slice(this.head);
  }
}
