import { EventEmitterPubSub } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import type { RecordableProvider } from '../../safety-checker/recorder.js';
import { checkLeaseHistory } from './check-lease-history.js';
import { recordLeaseCalls } from './record-lease-calls.js';

/** A clock the test moves by hand, so belief windows are exact. */
function manualClock() {
  let t = 1000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('recordLeaseCalls on Mastra’s in-memory provider', () => {
  it('hands back every result unchanged, records each call with its outcome, and passes other members through', async () => {
    const memory = new EventEmitterPubSub();
    const clock = manualClock();
    const a = recordLeaseCalls(memory, { client: 'a', now: clock.now });
    expect(await a.acquireLease('k', 'A', 5000)).toMatchObject({ acquired: true });
    expect(await a.acquireLease('k', 'B', 5000)).toMatchObject({ acquired: false });
    expect(await a.renewLease('k', 'A', 5000)).toBe(true);
    expect(await a.transferLease('k', 'A', 'B', 5000)).toBe(true);
    await a.releaseLease('k', 'B');
    expect(await a.getLeaseOwner('k')).toBeUndefined();
    expect(a.history.map((op) => [op.client, op.op, op.owner, op.outcome])).toEqual([
      ['a', 'acquire', 'A', 'ok'],
      ['a', 'acquire', 'B', 'lost'],
      ['a', 'renew', 'A', 'ok'],
      ['a', 'transfer', 'A', 'ok'],
      ['a', 'release', 'B', 'ok'],
    ]);
    expect(a).toBeInstanceOf(EventEmitterPubSub);
    expect(checkLeaseHistory(a.history).ok).toBe(true);
  });

  it('records a call that threw as an error and throws the same error to the caller', async () => {
    const failure = new Error('unreachable');
    const broken: RecordableProvider = {
      acquireLease: async () => Promise.reject(failure),
      renewLease: async () => false,
      releaseLease: async () => {},
      transferLease: async () => false,
    };
    const recorded = recordLeaseCalls(broken, { client: 'x' });
    await expect(recorded.acquireLease('k', 'A', 1000)).rejects.toBe(failure);
    expect(recorded.history).toMatchObject([{ op: 'acquire', outcome: 'error' }]);
  });

  it('refuses what is not a lease provider, naming the missing method', () => {
    expect(() => recordLeaseCalls({ acquireLease: async () => ({ acquired: true }) } as never)).toThrow(/provider\.renewLease must be a function/);
  });
});

describe('checkLeaseHistory', () => {
  it('reports two owners who both believed they held a key, with the key, the owners and both windows', async () => {
    // A "provider" that grants every acquire: the broken lock every checker must catch.
    const grantsAll: RecordableProvider = {
      acquireLease: async () => ({ acquired: true }),
      renewLease: async () => true,
      releaseLease: async () => {},
      transferLease: async () => true,
    };
    const clock = manualClock();
    const a = recordLeaseCalls(grantsAll, { client: 'pod-a', now: clock.now });
    const b = recordLeaseCalls(grantsAll, { client: 'pod-b', now: clock.now });
    await a.acquireLease('thread-1', 'run-a', 5000);
    clock.advance(1000);
    await b.acquireLease('thread-1', 'run-b', 5000);
    const verdict = checkLeaseHistory([...a.history, ...b.history]);
    expect(verdict.ok).toBe(false);
    expect(verdict.overlaps).toHaveLength(1);
    expect(verdict.overlaps[0]).toMatchObject({ key: 'thread-1', overlapMs: 4000 });
    expect(verdict.report).toContain('OVERLAP on key "thread-1": owners "run-a" and "run-b" both held it for 4000 ms');
    expect(verdict.report).toContain('"run-a" [0 ms, 5000 ms) ended by ttl, opened by acquire from pod-a');
  });

  it('reports a new owner whose fencing token is not above the earlier owner’s, and a stall past maxStallMs', () => {
    const op = (owner: string, sentAt: number, token: string, outcome: 'ok' | 'error' = 'ok') =>
      ({ client: owner, key: 'k', owner, op: 'acquire', ttlMs: 1000, sentAt, returnedAt: sentAt + 1, outcome, fencingToken: token }) as const;
    const verdict = checkLeaseHistory([op('A', 0, '7'), op('B', 2000, '5')], { maxStallMs: 1500 });
    expect(verdict.fencing).toMatchObject([{ kind: 'handover-not-increasing' }]);
    expect(verdict.report).toMatch(/FENCING on key "k" \(handover-not-increasing\): "B" got token 5 .* after "A" had token 7/);
    expect(verdict.stall?.durationMs).toBe(2000);
    expect(verdict.report).toContain('STALL: no call answered for 2000 ms');
  });

  it('refuses a bad maxStallMs, naming it', () => {
    expect(() => checkLeaseHistory([], { maxStallMs: -1 })).toThrow(/options\.maxStallMs/);
  });
});
