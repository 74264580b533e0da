/**
 * What a reconciler returns. Every controller here is a small reconciler with one job
 * (upstream's one folder per controller); its caller (the operator's work queue, the simulator's
 * event loop or a test) runs it again after `requeueAfter` seconds, or on the next watch event
 * when it is undefined.
 */
export interface ReconcileResult {
  /** Seconds until the reconciler wants to run again; undefined: only on a watch event. */
  readonly requeueAfter?: number;
}

/** Requeue after `seconds`. */
export function requeueAfter(seconds: number): ReconcileResult {
  return { requeueAfter: seconds };
}

/** Done until something changes. */
export const done: ReconcileResult = {};
