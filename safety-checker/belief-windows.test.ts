import { describe, expect, it } from 'vitest';
import { deriveBeliefWindows } from './belief-windows.js';
import { acquire, release, renew, spans, transfer, TTL } from './history.fixtures.js';

describe('deriveBeliefWindows: opening and refreshing', () => {
  it('belief starts when the acquire returns and lasts until its SEND time + ttl', () => {
    const windows = deriveBeliefWindows([acquire('A', 10, 15)]);
    expect(spans(windows)).toEqual([[15, 10 + TTL, 'A']]);
    expect(windows[0]?.endedBy).toBe('ttl');
  });

  it('a successful renew extends belief to its send time + ttl, not its return time + ttl', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 50, 70)]);
    expect(spans(windows)).toEqual([[1, 50 + TTL, 'A']]);
    expect(windows[0]?.grants.map((op) => op.op)).toEqual(['acquire', 'renew']);
  });

  it('a successful idempotent re-acquire refreshes like a renew', () => {
    expect(spans(deriveBeliefWindows([acquire('A', 0, 1), acquire('A', 60, 61)]))).toEqual([[1, 160, 'A']]);
  });

  it('belief lapses at the deadline when a renew is still in flight, and resumes when it returns ok', () => {
    // Sent at 90, returned at 120: between 100 and 120 the holder cannot know it still owns the key.
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 90, 120)]);
    expect(spans(windows)).toEqual([
      [1, 100, 'A'],
      [120, 190, 'A'],
    ]);
  });

  it('a refresh returning exactly at the deadline starts a new window there', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 90, 100)]);
    expect(spans(windows)).toEqual([
      [1, 100, 'A'],
      [100, 190, 'A'],
    ]);
  });

  it('a renew returning ok after the lease lapsed opens a new window at its return', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 150, 152)]);
    expect(spans(windows)).toEqual([
      [1, 100, 'A'],
      [152, 250, 'A'],
    ]);
  });

  it('a grant that returns after its own send time + ttl gives no belief at all', () => {
    expect(deriveBeliefWindows([acquire('A', 0, TTL)])).toEqual([]);
    expect(deriveBeliefWindows([acquire('A', 0, TTL + 5)])).toEqual([]);
  });

  it('a grant returning after its own deadline is not counted among an open window\'s grants', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 40, 41), renew('A', 10, 120)]);
    expect(spans(windows)).toEqual([[1, 140, 'A']]);
    expect(windows[0]?.grants.map((op) => op.sentAt)).toEqual([0, 40]);
  });

  it('the most recently sent refresh sets the deadline, so a shorter ttl shortens belief', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 10, 11, { ttlMs: 20 })]);
    expect(spans(windows)).toEqual([[1, 30, 'A']]);
  });

  it('of two refreshes sent at the same reading, the shorter deadline counts (either may have applied last)', () => {
    for (const history of [
      [acquire('A', 0, 1), renew('A', 40, 41, { ttlMs: 20 }), renew('A', 40, 42)],
      [acquire('A', 0, 1), renew('A', 40, 42), renew('A', 40, 41, { ttlMs: 20 })],
    ]) {
      expect(spans(deriveBeliefWindows(history))).toEqual([[1, 60, 'A']]);
    }
  });

  it('a refresh sent earlier but returning later does not move the deadline back', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 40, 80), renew('A', 50, 60)]);
    expect(spans(windows)).toEqual([[1, 150, 'A']]);
  });
});

describe('deriveBeliefWindows: outcomes that do not grant', () => {
  it('an acquire that was not acquired gives no belief', () => {
    expect(deriveBeliefWindows([acquire('A', 0, 1, { outcome: 'lost' })])).toEqual([]);
  });

  it('an acquire that threw gives no belief, even though it may have committed', () => {
    expect(deriveBeliefWindows([acquire('A', 0, 1, { outcome: 'error' })])).toEqual([]);
  });

  it('a renew that threw neither extends nor ends belief', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 50, 60, { outcome: 'error' })]);
    expect(spans(windows)).toEqual([[1, 100, 'A']]);
    expect(windows[0]?.endedBy).toBe('ttl');
  });

  it('a renew returning false ends belief when it returns (when the holder learns)', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 30, 35, { outcome: 'lost' })]);
    expect(spans(windows)).toEqual([[1, 35, 'A']]);
    expect(windows[0]?.endedBy).toBe('lost');
  });

  it('a grant and a lost returning at the same reading leave the owner believing (the stricter reading)', () => {
    const windows = deriveBeliefWindows([
      acquire('A', 0, 1),
      renew('A', 30, 50, { outcome: 'lost' }),
      renew('A', 40, 50),
    ]);
    expect(spans(windows)).toEqual([
      [1, 50, 'A'],
      [50, 140, 'A'],
    ]);
  });

  it('a re-acquire reporting another holder ends belief when it returns', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), acquire('A', 30, 35, { outcome: 'lost' })]);
    expect(spans(windows)).toEqual([[1, 35, 'A']]);
    expect(windows[0]?.endedBy).toBe('lost');
  });
});

describe('deriveBeliefWindows: giving up', () => {
  it('belief ends when the release is SENT, whatever the release returns', () => {
    for (const outcome of ['ok', 'error'] as const) {
      const windows = deriveBeliefWindows([acquire('A', 0, 1), release('A', 40, 45, { outcome })]);
      expect(spans(windows)).toEqual([[1, 40, 'A']]);
      expect(windows[0]?.endedBy).toBe('release');
    }
  });

  it('a transfer ends the giver at its send time and starts the receiver at its return, refreshed from its send time', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), transfer('A', 'B', 40, 45)]);
    expect(spans(windows)).toEqual([
      [1, 40, 'A'],
      [45, 40 + TTL, 'B'],
    ]);
    expect(windows.map((w) => w.endedBy)).toEqual(['transfer', 'ttl']);
  });

  it('a transfer that returned false or threw ends the giver and gives the receiver nothing', () => {
    for (const outcome of ['lost', 'error'] as const) {
      const windows = deriveBeliefWindows([acquire('A', 0, 1), transfer('A', 'B', 40, 45, { outcome })]);
      expect(spans(windows)).toEqual([[1, 40, 'A']]);
    }
  });

  it('a grant in flight while the owner sends a release is ignored (the client cannot order them)', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), renew('A', 30, 50), release('A', 40, 45)]);
    expect(spans(windows)).toEqual([[1, 40, 'A']]);
  });

  it('a grant in flight while the owner\'s release is in flight is ignored too', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), release('A', 40, 60), acquire('A', 50, 55)]);
    expect(spans(windows)).toEqual([[1, 40, 'A']]);
  });

  it('a release returning at the very instant an acquire is sent is not assumed to come first', () => {
    // Equal clock readings do not order the two calls at the server.
    const windows = deriveBeliefWindows([acquire('A', 0, 1), release('A', 40, 45), acquire('A', 45, 48)]);
    expect(spans(windows)).toEqual([[1, 40, 'A']]);
  });

  it('an acquire sent after the owner\'s release returned is a fresh grant', () => {
    const windows = deriveBeliefWindows([acquire('A', 0, 1), release('A', 40, 45), acquire('A', 46, 48)]);
    expect(spans(windows)).toEqual([
      [1, 40, 'A'],
      [48, 146, 'A'],
    ]);
  });
});

describe('deriveBeliefWindows: bookkeeping', () => {
  it('keys are judged independently and windows come sorted by key, then start', () => {
    const windows = deriveBeliefWindows([
      acquire('B', 5, 6, { key: 'k2' }),
      acquire('A', 0, 1, { key: 'k1' }),
      release('A', 10, 11, { key: 'k2' }),
    ]);
    expect(windows.map((w) => [w.key, w.owner, w.start, w.end])).toEqual([
      ['k1', 'A', 1, 100],
      ['k2', 'B', 6, 105],
    ]);
  });

  it('keys containing NUL bytes (as Mastra builds them) are kept distinct', () => {
    const windows = deriveBeliefWindows([
      acquire('A', 0, 1, { key: 'r\u0000t1' }),
      acquire('B', 0, 1, { key: 'r\u0000t2' }),
    ]);
    expect(windows.map((w) => w.key)).toEqual(['r\u0000t1', 'r\u0000t2']);
  });

  it('an empty history has no windows', () => {
    expect(deriveBeliefWindows([])).toEqual([]);
  });
});
