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

/**
 * A singleton controller run on a period rather than per object (upstream's singleton
 * reconcilers, such as a provider's garbage collection): its runner (the operator's manager)
 * runs it once when it starts leading, then every `intervalSeconds`, never two runs at once; a
 * rejected run is logged and tried again at the next tick.
 */
export interface PeriodicTask {
  /** Dotted name for logs, e.g. `azure.instance.garbagecollection`. */
  readonly name: string;
  /** Seconds between the starts of two runs. */
  readonly intervalSeconds: number;
  /** One run; what it resolves with is for tests and logs. A rejection is logged, never fatal. */
  run(): Promise<unknown>;
  /**
   * Called once when the runner stops, so a run blocked in a long wait (the AWS interruption
   * queue's 20-second receive) returns at once instead of outliving the manager.
   */
  stop?(): void;
}
