import { CompareTarget, type Etcd3 } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { LeaseClock } from '../clock/lease-clock.js';
import type { GroupCommitter } from '../commit/group-committer.js';
import type { PooledLease } from '../leases/lease-choice.js';
import type { LeasePool } from '../leases/lease-pool.js';
import type { KeyValue, ResponseOp, TxnRequest } from '../operations/etcd-txn.js';
import { TenureTable } from '../tenure/tenure-table.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { OPERATIONS } from './operation-set.js';
import { LeaseBackend, type BackendParts } from './lease-backend.js';
import { refreshHeld } from './refresh-held.js';

const KEY = Buffer.from('p/k');
const A = Buffer.from('A');
/** This provider's leases here: ids 1000–1999, the lease under id N lasting until N × 10 ms on both scales. */
const ownLease = (id: string): PooledLease | undefined => (/^1\d{3}$/.test(id) ? { id, notBefore: Number(id) * 10, steadyNotBefore: Number(id) * 10 } : undefined);
const CALL_LEASE: PooledLease = { id: '1500', notBefore: 15_000, steadyNotBefore: 15_000 };

/** The real LeaseBackend over a committer that answers each transaction with the next scripted answer. */
function backendAnswering(answers: Array<{ succeeded: boolean; responses?: ResponseOp[] }>, leaseFor: () => PooledLease | Promise<PooledLease> = () => CALL_LEASE) {
  const clock = new LeaseClock({ monotonic: () => 0, wall: () => Date.UTC(2026, 0, 1) });
  const sent: TxnRequest[] = [];
  const tenures = new TenureTable();
  const parts = {
    client: { leaseClient: { leaseTimeToLive: async () => ({ TTL: '100', grantedTTL: '100' }) } } as unknown as Etcd3,
    committer: {
      submit: async (_key: Buffer, txn: TxnRequest) => {
        sent.push(txn);
        const next = answers.shift() ?? { succeeded: false };
        return { succeeded: next.succeeded, responses: next.responses ?? [], revision: String(50 + sent.length) };
      },
    } as unknown as GroupCommitter,
    pool: { leaseFor, leaseReaching: leaseFor, record: ownLease, invalidate: () => {} } as unknown as LeasePool,
    clock,
    tenures,
    operations: OPERATIONS,
  } as Partial<BackendParts> as BackendParts;
  const backend = new LeaseBackend(parts);
  const call = new AbortController();
  const attempt: AttemptContext = { timeoutMs: 500, deadline: new Date(Date.now() + 500), attempt: 0, signal: call.signal };
  const request = { etcdKey: KEY, keyId: KEY.toString('latin1'), value: A, ttlMs: 15_000, sent: { at: 0, steady: 0 } };
  return { sent, tenures, call, backend, refresh: (version?: { revision: string; lease: string }) => refreshHeld(backend, request, attempt, version, 'renewLease') };
}

const read = (kv?: Partial<KeyValue>): ResponseOp[] => [
  { response_range: { kvs: kv ? [{ key: KEY, value: A, mod_revision: '41', create_revision: '7', lease: '1200', ...kv }] : [] } },
];
const mod = (txn: TxnRequest) => txn.compare?.find((c) => c.mod_revision !== undefined)?.mod_revision;
const leaseOf = (txn: TxnRequest) => (txn.success?.[0]?.request_put?.ignore_lease ? 'kept' : txn.success?.[0]?.request_put?.lease);

describe('refreshing a key its value holds', () => {
  it('a known version on a lease of ours is one pinned transaction, and the tenure notes the lease it left the key on', async () => {
    const { sent, tenures, refresh } = backendAnswering([{ succeeded: true }]);
    expect(await refresh({ revision: '41', lease: '1200' })).toEqual({ kind: 'written', revision: '51' });
    expect(sent.map((t) => [mod(t), leaseOf(t)])).toEqual([['41', '1500']]);
    expect(tenures.versionOf(KEY.toString('latin1'), A)).toMatchObject({ revision: '51', lease: '1500' });
  });

  it('keeps a key that is on a later lease of ours where it is', async () => {
    const { sent, tenures, refresh } = backendAnswering([{ succeeded: true }]);
    await refresh({ revision: '41', lease: '1700' });
    expect(sent.map(leaseOf)).toEqual(['kept']);
    expect(tenures.versionOf(KEY.toString('latin1'), A)).toMatchObject({ lease: '1700' });
  });

  it('when our value holds the key as another version, the next step is pinned to that version', async () => {
    const { sent, refresh } = backendAnswering([{ succeeded: false, responses: read({ mod_revision: '45', lease: '1600' }) }, { succeeded: true }]);
    expect(await refresh({ revision: '41', lease: '1200' })).toEqual({ kind: 'written', revision: '52' });
    expect(sent.map((t) => [mod(t), leaseOf(t)])).toEqual([
      ['41', '1500'],
      ['45', 'kept'],
    ]);
  });

  it('without a known version it reads the key first; someone else\u2019s key or none is not held, and nothing is written', async () => {
    const ours = backendAnswering([{ succeeded: true, responses: read({ mod_revision: '44', lease: '1100' }) }, { succeeded: true }]);
    expect(await ours.refresh(undefined)).toEqual({ kind: 'written', revision: '52' });
    expect(ours.sent.map((t) => [t.compare?.length ?? 0, mod(t)])).toEqual([
      [0, undefined],
      [2, '44'],
    ]);
    const taken = backendAnswering([{ succeeded: false, responses: read({ value: Buffer.from('B') }) }]);
    expect(await taken.refresh({ revision: '41', lease: '1200' })).toMatchObject({ kind: 'not-held', kv: { value: Buffer.from('B') } });
    const gone = backendAnswering([{ succeeded: false, responses: read() }]);
    expect(await gone.refresh({ revision: '41', lease: '1200' })).toEqual({ kind: 'not-held' });
  });

  it('a key on a lease this provider did not mint is settled by that lease\u2019s TTL, pinned to the version read', async () => {
    const { sent, refresh } = backendAnswering([{ succeeded: true }]);
    expect(await refresh({ revision: '41', lease: '7587871234567890123' })).toEqual({ kind: 'written', revision: '51' });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.compare?.map((c) => c.target)).toEqual([CompareTarget.Value, CompareTarget.Mod, CompareTarget.Lease]);
  });

  it('a call that ends while its refresh waits for a lease grant rejects, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { sent, call, refresh } = backendAnswering([], () => new Promise<PooledLease>(() => {}));
      const pending = refresh({ revision: '41', lease: '1200' });
      call.abort(new Error('deadline'));
      await expect(pending).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 20)); // unhandled rejections are reported after a turn
      expect(unhandled).toEqual([]);
      expect(sent).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a key on a lease of ours that a forward clock step makes look short is moved only onto one that reaches it on both scales', async () => {
    // The key's lease (granted before the step) lasts 30 s on the steady scale; the pool's lease for this call was
    // granted after a 12 s step: later on the lease-clock scale, yet 10 s shorter in real time.
    const before: PooledLease = { id: '1100', notBefore: 11_000, steadyNotBefore: 30_000 };
    const afterStep: PooledLease = { id: '1900', notBefore: 27_000, steadyNotBefore: 20_000 };
    const reaching: unknown[] = [];
    const { sent, refresh, backend } = backendAnswering([{ succeeded: true }], () => afterStep);
    backend.parts.pool.record = (id: string) => (id === before.id ? before : undefined);
    backend.parts.pool.leaseReaching = (need) => {
      reaching.push(need);
      return { id: '1950', ...need };
    };
    expect(await refresh({ revision: '41', lease: before.id })).toEqual({ kind: 'written', revision: '51' });
    expect(reaching).toEqual([{ notBefore: 15_000, steadyNotBefore: 30_000 }]);
    expect(sent.map(leaseOf)).toEqual(['1950']);
  });
});
