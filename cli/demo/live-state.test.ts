import { describe, expect, it } from 'vitest';
import { LiveState } from './live-state.js';
import type { DemoOp } from './worker-protocol.js';

const op = (fields: Partial<DemoOp> & Pick<DemoOp, 'op' | 'owner' | 'sentAt'>): DemoOp => ({
  client: 'w1',
  key: 'k',
  ttlMs: 1000,
  returnedAt: fields.sentAt + 1,
  outcome: 'ok',
  ...fields,
});

describe('LiveState', () => {
  it('follows ownership through acquire, transfer and release', () => {
    const state = new LiveState(['k']);
    state.apply([op({ op: 'acquire', owner: 'a', sentAt: 0, fencingToken: '7' })]);
    expect(state.keys.get('k')).toMatchObject({ owner: 'a', fencingToken: '7', believedUntil: 1000 });
    state.apply([op({ op: 'transfer', owner: 'a', toOwner: 'b', sentAt: 10 })]);
    expect(state.keys.get('k')?.owner).toBe('b');
    state.apply([op({ op: 'release', owner: 'b', sentAt: 20 })]);
    expect(state.keys.get('k')?.owner).toBeUndefined();
  });

  it("a loser's refused acquire (contention) and another owner's release do not change the holder; a refused renew counts apart", () => {
    const state = new LiveState(['k']);
    state.apply([
      op({ op: 'acquire', owner: 'a', sentAt: 0 }),
      op({ op: 'acquire', owner: 'b', sentAt: 5, outcome: 'lost' }),
      op({ op: 'release', owner: 'b', sentAt: 6 }),
    ]);
    expect(state.keys.get('k')?.owner).toBe('a');
    expect(state.contended).toBe(1);
    expect(state.refused).toBe(0);
    state.apply([op({ op: 'renew', owner: 'a', sentAt: 7, outcome: 'lost' })]);
    expect(state.refused).toBe(1);
  });

  it('counts errors by code and ops per second over a window', () => {
    const state = new LiveState(['k']);
    state.apply([
      op({ op: 'renew', owner: 'a', sentAt: 0, returnedAt: 900, outcome: 'error', errorCode: 'ELEASE_UNAVAILABLE' }),
      op({ op: 'renew', owner: 'a', sentAt: 1000, returnedAt: 1500 }),
      op({ op: 'renew', owner: 'a', sentAt: 2000, returnedAt: 2500 }),
    ]);
    expect(state.errors).toBe(1);
    expect(state.errorCodes.get('ELEASE_UNAVAILABLE')).toBe(1);
    expect(state.opsPerSecond(3000, 3000)).toBe(1);
  });
});
