/**
 * The scheduling queue (upstream `queue.go`): pods ordered by cpu request
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

/** Sorts rows of float64 keys (see `Solver.orderRows`: lanes left to right, stable). */
export type RowOrderer = (keys: Float64Array, width: number, order: Int32Array) => void;

/** Uid characters per key lane: 6 × 8 bits stay exact in a float64. */
const UID_CHARS_PER_LANE = 6;
/** Longer uids (never Kubernetes UIDs, 36 characters) use the comparison sort. */
const MAX_UID_LANES = 64;

/**
 * The pod's queue-order key, cached on the pod: -cpu, -memory, creation time, then the uid as
 * lanes of 6 characters (8 bits each, zero-padded), then the uid's length. Comparing lanes in
 * order then orders uids as string comparison does (a shorter prefix first). Null when a uid
 * character is beyond U+00FF or the uid is too long (the queue then compares strings).
 */
function queueKey(d: PodData): Float64Array | null {
  if (d.memo.queueKey !== undefined) return d.memo.queueKey;
  const uid = d.uid;
  const uidLanes = Math.ceil(uid.length / UID_CHARS_PER_LANE) + 1;
  let key: Float64Array | null = null;
  if (uidLanes <= MAX_UID_LANES) {
    key = new Float64Array(3 + uidLanes);
    key[0] = -(d.requests['cpu'] ?? 0);
    key[1] = -(d.requests['memory'] ?? 0);
    key[2] = creationMillis(d);
    for (let i = 0; i < uid.length && key !== null; i += UID_CHARS_PER_LANE) {
      let v = 0;
      for (let j = i; j < i + UID_CHARS_PER_LANE; j++) {
        const c = j < uid.length ? uid.charCodeAt(j) : 0;
        if (c > 0xff) {
          key = null;
          break;
        }
        v = v * 256 + c;
      }
      if (key !== null) key[3 + i / UID_CHARS_PER_LANE] = v;
    }
    if (key !== null) key[key.length - 1] = uid.length;
  }
  d.memo.queueKey = key;
  return key;
}

/**
 * Sorts pods into queue order (a new array). With `orderRows` (the solver's), the order keys
 * (-cpu, -memory, creation time, uid lanes) are sorted as numbers in one call; otherwise, or
 * when a uid does not fit the lanes, by a comparison sort. Both give the same order.
 */
export function queueOrder(pods: readonly PodData[], orderRows?: RowOrderer): PodData[] {
  if (orderRows !== undefined && pods.length > 1) {
    const ordered = orderByKeys(pods, orderRows);
    if (ordered !== undefined) return ordered;
  }
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

function orderByKeys(pods: readonly PodData[], orderRows: RowOrderer): PodData[] | undefined {
  let width = 0;
  for (const d of pods) {
    const key = queueKey(d);
    if (key === null) return undefined;
    if (key.length > width) width = key.length;
  }
  // shorter uids are zero-padded: their length stays in the last lane
  const keys = new Float64Array(pods.length * width);
  for (let i = 0; i < pods.length; i++) {
    const key = (pods[i] as PodData).memo.queueKey as Float64Array;
    const at = i * width;
    const last = key.length - 1;
    for (let k = 0; k < last; k++) keys[at + k] = key[k] as number;
    keys[at + width - 1] = key[last] as number;
  }
  const order = new Int32Array(pods.length);
  orderRows(keys, width, order);
  const out = new Array<PodData>(pods.length);
  for (let i = 0; i < order.length; i++) out[i] = pods[order[i] as number] as PodData;
  return out;
}

/** A FIFO of pods with upstream's no-progress termination rule. */
export class SchedulingQueue {
  private items: PodData[];
  /**
   * Beside each item, the queue length right after it was pushed back (-1 for the initial
   * order). A pod is queued at most once at a time, so this is the length after its last push:
   * upstream's per-pod map, without a map entry per failing pod.
   */
  private pushedAt: number[];
  private head = 0;

  /** @param orderRows sorts the queue keys (the solver's `orderRows`); see `queueOrder`. */
  constructor(pods: readonly PodData[], orderRows?: RowOrderer) {
    this.items = queueOrder(pods, orderRows);
    this.pushedAt = new Array<number>(this.items.length).fill(-1);
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
    if (this.pushedAt[this.head] === this.length) return undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.pushedAt = this.pushedAt.slice(this.head);
      this.head = 0;
    }
    return next;
  }

  /** Puts a pod that failed this round at the back. */
  pushBack(pod: PodData): void {
    this.items.push(pod);
    this.pushedAt.push(this.length);
  }

  /** The pods left (after `pop` returned undefined). */
  remaining(): PodData[] {
    return this.items.slice(this.head);
  }
}
