/**
 * When the engine's next iteration happens (clock ms), given the state after a tick.
 *
 * - Work in flight (pods pending, machines launching, nodes draining, decisions queued): the
 *   next 1 s tick, as the controllers requeue every second. With `fastForward`, once
 *   {@link QUIET_TICKS_BEFORE_JUMP} ticks in a row wrote nothing (the controllers are waiting,
 *   e.g. for the kubelet to register a node), the engine jumps to the next timer but at most
 *   {@link MAX_BUSY_JUMP_SECONDS} (the provisioner's longest batch window), so no controller
 *   that waits on a requeue it does not report is late by more than that.
 * - Nothing in flight: the next timer (a scenario action, a pod completing, a sample, a
 *   controller's poll or requeue), however far.
 * Never past the scenario's end, never before `nowMs`.
 */

/** Ticks in a row without a write before a busy cluster may be fast-forwarded. */
export const QUIET_TICKS_BEFORE_JUMP = 2;
/** Longest jump while work is in flight, seconds (the provisioner's 10 s maximum batch window). */
export const MAX_BUSY_JUMP_SECONDS = 10;

/** Inputs of {@link nextWakeMs}. */
export interface WakeInput {
  /** The clock after the tick. */
  readonly nowMs: number;
  readonly endMs: number;
  readonly busy: boolean;
  /** Ticks in a row that wrote nothing. */
  readonly quietTicks: number;
  readonly fastForward: boolean;
  /** Due times of everything with a timer (undefined: none). */
  readonly timers: readonly (number | undefined)[];
}

/** See the module comment. */
export function nextWakeMs(i: WakeInput): number {
  let next = i.endMs;
  for (const t of i.timers) if (t !== undefined && t < next) next = t;
  if (i.busy) {
    if (!i.fastForward || i.quietTicks < QUIET_TICKS_BEFORE_JUMP) return i.nowMs;
    next = Math.min(next, i.nowMs + MAX_BUSY_JUMP_SECONDS * 1000);
  }
  return Math.max(i.nowMs, Math.min(next, i.endMs));
}
