import { describe, expect, it, vi } from 'vitest';
import { RenewTally, RenewTimers } from './renew-timers.js';

describe('renew timers', () => {
  it('renew each started key once per period from a random phase, and count the answers', async () => {
    vi.useFakeTimers();
    try {
      const tally = new RenewTally();
      const renewed: number[] = [];
      const timers = new RenewTimers(1000, async (i) => (renewed.push(i), i !== 1), tally);
      timers.start(0);
      timers.start(1);
      await vi.advanceTimersByTimeAsync(3000);
      const counts = tally.take();
      expect(renewed.filter((i) => i === 0)).toHaveLength(3);
      expect(counts.renews).toBe(6);
      expect(counts.failures).toBe(3); // key 1 answered false
      await timers.stop();
      await vi.advanceTimersByTimeAsync(3000);
      expect(renewed).toHaveLength(6);
    } finally {
      vi.useRealTimers();
    }
  });
});
