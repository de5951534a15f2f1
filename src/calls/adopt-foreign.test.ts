import type { Etcd3 } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { LeaseClock } from '../clock/lease-clock.js';
import type { GroupCommitter } from '../commit/group-committer.js';
import { isLeaseError } from '../errors/lease-error.js';
import { reachAfter, type PooledLease, type Reach } from '../leases/lease-choice.js';
import type { ClockMoment } from '../clock/lease-clock.js';
import type { LeasePool } from '../leases/lease-pool.js';
import type { TxnRequest } from '../operations/etcd-txn.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { adoptForeign } from './adopt-foreign.js';
import { LeaseBackend, type BackendParts } from './lease-backend.js';

const KEY = Buffer.from('p/k');
const VALUE = Buffer.from('A');
const FOREIGN = '7587871234567890123';
const ROUND_TRIP_MS = 40;

/**
 * The real LeaseBackend over a fake etcd: a key held by VALUE on a foreign lease, whose LeaseTimeToLive answers
 * `ttl` one round trip after it was asked; the pool hands out a lease lasting exactly until the need it is asked
 * for. Records every committed transaction.
 */
function foreignKey(ttl: { TTL: string; grantedTTL: string }) {
  const raw = { monotonic: 0, wall: Date.UTC(2026, 0, 1) };
  const clock = new LeaseClock({ monotonic: () => raw.monotonic, wall: () => raw.wall });
  const committed: TxnRequest[] = [];
  const until = (need: Reach): PooledLease => ({ id: `ours-until-${need.notBefore}`, ...need });
  const pool = {
    leaseFor: (ttlMs: number, sent: ClockMoment): PooledLease => until(reachAfter(sent, ttlMs)),
    leaseReaching: until,
    invalidate: () => {},
  };
  const parts = {
    client: {
      leaseClient: {
        leaseTimeToLive: async () => {
          raw.monotonic += ROUND_TRIP_MS;
          raw.wall += ROUND_TRIP_MS;
          return { TTL: ttl.TTL, grantedTTL: ttl.grantedTTL, ID: FOREIGN };
        },
      },
    } as unknown as Etcd3,
    committer: {
      submit: async (_key: Buffer, txn: TxnRequest) => {
        committed.push(txn);
        return { succeeded: true, responses: [], revision: '42' };
      },
    } as unknown as GroupCommitter,
    pool: pool as unknown as LeasePool,
    clock,
  } as Partial<BackendParts> as BackendParts;
  const backend = new LeaseBackend(parts);
  const attempt: AttemptContext = { timeoutMs: 500, deadline: new Date(Date.now() + 500), attempt: 0, signal: new AbortController().signal as never };
  const kv = { key: KEY, value: VALUE, mod_revision: '41', create_revision: '40', lease: FOREIGN };
  /** Adopt for a call that needs the key until `need`, offered the pool's lease for exactly that. */
  const adopt = (need: number) => {
    // The test clock's two raw clocks move together: its scales agree.
    const reach = { notBefore: need, steadyNotBefore: need };
    return adoptForeign(backend, KEY, VALUE, kv, reach, until(reach), attempt);
  };
  return { clock, committed, adopt };
}

/** The lease the committed write puts the key on: 'kept' for ignore_lease. */
function leaseWritten(txn: TxnRequest): string {
  const put = txn.success?.[0]?.request_put;
  return put?.ignore_lease ? 'kept' : String(put?.lease);
}

describe('a key of ours on a foreign lease', () => {
  it('stays on it when the lease lasts until the need even read low (truncated, from when it was asked)', async () => {
    const { clock, committed, adopt } = foreignKey({ TTL: '9', grantedTTL: '15' });
    const need = clock.now() + 9_000;
    expect(await adopt(need)).toEqual({ revision: '42', leaseId: FOREIGN });
    expect(committed.map(leaseWritten)).toEqual(['kept']);
  });

  it('does not stay on it when only the high reading would last until the need', async () => {
    const { clock, committed, adopt } = foreignKey({ TTL: '9', grantedTTL: '15' });
    await adopt(clock.now() + 9_500);
    expect(committed.map(leaseWritten)).not.toEqual(['kept']);
  });

  it('moves it onto a lease of ours that outlasts the foreign one read high (one more second, from the answer)', async () => {
    // 9 s truncated: the foreign lease may run up to 10 s after the answer, and its other writer may rely on all
    // of it. A lease of ours that lasts only until the need (9.5 s) could end before that writer's window.
    const { clock, committed, adopt } = foreignKey({ TTL: '9', grantedTTL: '15' });
    const askedAt = clock.now();
    await adopt(askedAt + 9_500);
    expect(committed).toHaveLength(1);
    const until = Number(leaseWritten(committed[0]!).replace('ours-until-', ''));
    expect(until).toBeGreaterThanOrEqual(askedAt + ROUND_TRIP_MS + 10_000);
  });

  it("neither keeps nor moves it on a just-elected leader's placeholder TTL: the attempt fails, retryable", async () => {
    const { clock, committed, adopt } = foreignKey({ TTL: '9223372036', grantedTTL: '15' });
    const failure = await adopt(clock.now() + 10_000).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(committed).toEqual([]);
    expect(isLeaseError(failure) && [failure.code, failure.retryable]).toEqual(['ELEASE_UNAVAILABLE', true]);
  });
});
