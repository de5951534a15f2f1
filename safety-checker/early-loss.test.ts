import { describe, expect, it } from 'vitest';
import { checkEarlyLoss } from './early-loss.js';
import { acquire, release, renew, transfer } from './history.fixtures.js';

// TTL is 100: a grant sent at t promises the key until t + 100.
const lost = { outcome: 'lost' } as const;

describe('checkEarlyLoss', () => {
  it('flags a renew answered false while the last answered renew still promised the key', () => {
    const history = [acquire('A', 0, 5), renew('A', 33, 40), renew('A', 66, 70, lost)];
    const [loss, ...rest] = checkEarlyLoss(history);
    expect(rest).toEqual([]);
    expect(loss).toMatchObject({ key: 'k', owner: 'A', earlyByMs: 133 - 70 });
    expect(loss!.grant).toBe(history[1]);
    expect(loss!.lost).toBe(history[2]);
  });

  it('flags an acquire refresh and a transfer answered lost too, and a transfer-in counts as a grant', () => {
    expect(checkEarlyLoss([acquire('A', 0, 5), acquire('A', 30, 35, lost)])).toHaveLength(1);
    expect(checkEarlyLoss([acquire('A', 0, 5), transfer('A', 'B', 30, 35, lost)])).toHaveLength(1);
    expect(checkEarlyLoss([acquire('A', 0, 5), transfer('A', 'B', 10, 15), renew('B', 40, 45, lost)])).toHaveLength(1);
  });

  it('passes a loss answered once the promise ended, even when sent before', () => {
    expect(checkEarlyLoss([acquire('A', 0, 5), renew('A', 90, 101, lost)])).toEqual([]);
    expect(checkEarlyLoss([acquire('A', 0, 5), renew('A', 100, 102, lost)])).toEqual([]);
  });

  it('passes a loss after renewals that failed: only answered grants promise anything', () => {
    const history = [acquire('A', 0, 5), renew('A', 33, 90, { outcome: 'error' }), renew('A', 66, 150, { outcome: 'error' }), renew('A', 99, 120, lost)];
    expect(checkEarlyLoss(history)).toEqual([]);
  });

  it('passes a loss beside a grant still in flight: it may have been applied after the loss', () => {
    expect(checkEarlyLoss([renew('A', 0, 50), renew('A', 40, 45, lost)])).toEqual([]);
  });

  it("passes a loss the owner's own release or transfer away may explain, in flight or done", () => {
    expect(checkEarlyLoss([acquire('A', 0, 5), release('A', 10, 12), acquire('A', 20, 25, lost)])).toEqual([]);
    expect(checkEarlyLoss([acquire('A', 0, 5), release('A', 10, 60, { outcome: 'error' }), renew('A', 20, 25, lost)])).toEqual([]);
    expect(checkEarlyLoss([acquire('A', 0, 5), transfer('A', 'B', 10, 12), renew('A', 20, 25, lost)])).toEqual([]);
    // A release that returned before the grant was sent is behind it: the later grant still promises.
    expect(checkEarlyLoss([acquire('A', 0, 5), release('A', 10, 12), acquire('A', 20, 25), renew('A', 50, 55, lost)])).toHaveLength(1);
  });

  it("keeps owners and keys apart: another owner's loss, or a loss on another key, breaks no promise", () => {
    expect(checkEarlyLoss([acquire('A', 0, 5), acquire('B', 10, 15, lost)])).toEqual([]);
    expect(checkEarlyLoss([acquire('A', 0, 5), renew('A', 10, 15, { key: 'other', outcome: 'lost' })])).toEqual([]);
  });

  it('judges against the furthest promise among the answered grants', () => {
    const [loss] = checkEarlyLoss([acquire('A', 0, 5), renew('A', 50, 55), renew('A', 20, 60), renew('A', 70, 80, lost)]);
    expect(loss!.earlyByMs).toBe(150 - 80);
  });
});
