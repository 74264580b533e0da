import { afterEach, describe, expect, it, vi } from 'vitest';
import { WakeableSleep } from '../src/wakeable-sleep.js';

afterEach(() => vi.useRealTimers());

describe('WakeableSleep', () => {
  it('ends a pending wait as soon as it is woken', async () => {
    vi.useFakeTimers();
    const pause = new WakeableSleep();
    let done = false;
    const waiting = pause.sleep(3_600_000).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    pause.wake();
    await waiting;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0); // the hour-long timer was cleared, not left running
  });

  it('ends by itself once the time has passed, and a later wake is harmless', async () => {
    vi.useFakeTimers();
    const pause = new WakeableSleep();
    let done = false;
    const waiting = pause.sleep(500).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
    pause.wake();
  });
});
