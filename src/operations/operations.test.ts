import { CompareResult, CompareTarget } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { acquireTxn, decodeAcquire } from './acquire.js';
import { decodeAdopt, keepLeaseTxn, moveLeaseTxn } from './adopt-lease.js';
import { decodeDeleteRevision, deleteRevisionTxn } from './delete-revision.js';
import type { KeyValue, ResponseOp, TxnOutcome } from './etcd-txn.js';
import { decodeRead, readTxn } from './read-lease.js';
import { decodeRefresh, refreshOwnTxn } from './refresh-own.js';
import { decodeRelease, releaseTxn } from './release.js';
import { decodeTransfer, transferTxn } from './transfer.js';

const key = Buffer.from('p/res\u0000thr', 'utf8');
const A = Buffer.from('A');
const B = Buffer.from('B');
const own = { lowest: '1000', highest: '1999' };
const kv = (value: Buffer, extra: Partial<KeyValue> = {}): KeyValue => ({
  key,
  value,
  mod_revision: '41',
  create_revision: '7',
  lease: '1500',
  ...extra,
});
const outcome = (o: Partial<TxnOutcome>): TxnOutcome => ({ succeeded: false, responses: [], revision: '42', ...o });
const nestedAnswer = (succeeded: boolean, responses: ResponseOp[] = []): ResponseOp[] => [{ response_txn: { succeeded, responses } }];
/** The refresh sub-transaction's answer when both of its branches failed and it read the key. */
const refreshRead = (found?: KeyValue): ResponseOp[] =>
  nestedAnswer(false, nestedAnswer(false, [{ response_range: { kvs: found ? [found] : [] } }]));

describe('refresh of a key we hold: never onto an earlier-ending lease', () => {
  const txn = refreshOwnTxn(key, A, '1500', own);

  it('moves the key to the new lease only from one of our leases with an id no larger', () => {
    expect(txn.compare).toEqual([
      { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
      { key, target: CompareTarget.Lease, result: CompareResult.Greater, lease: '999' },
      { key, target: CompareTarget.Lease, result: CompareResult.Less, lease: '1501' },
    ]);
    expect(txn.success).toEqual([{ request_put: { key, value: A, lease: '1500' } }]);
  });

  it('keeps the key on a later-ending lease of ours, still writing (ignore_lease) so the call has a revision', () => {
    const inner = txn.failure![0]!.request_txn!;
    expect(inner.compare).toEqual([
      { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
      { key, target: CompareTarget.Lease, result: CompareResult.Greater, lease: '1500' },
      { key, target: CompareTarget.Lease, result: CompareResult.Less, lease: '2000' },
    ]);
    expect(inner.success).toEqual([{ request_put: { key, value: A, ignore_lease: true } }]);
    expect(inner.failure).toEqual([{ request_range: { key } }]);
  });

  it('reports written for either branch, foreign for our value on a lease we did not mint, not-held otherwise', () => {
    expect(decodeRefresh(outcome({ succeeded: true }), A)).toEqual({ kind: 'written', revision: '42' });
    expect(decodeRefresh(outcome({ responses: nestedAnswer(true) }), A)).toEqual({ kind: 'written', revision: '42' });
    const foreign = kv(A, { lease: '7587871234567890123' });
    expect(decodeRefresh(outcome({ responses: refreshRead(foreign).at(0)!.response_txn!.responses }), A)).toEqual({ kind: 'foreign', kv: foreign });
    expect(decodeRefresh(outcome({ responses: nestedAnswer(false, [{ response_range: { kvs: [kv(B)] } }]) }), A)).toEqual({ kind: 'not-held', kv: kv(B) });
    expect(decodeRefresh(outcome({ responses: nestedAnswer(false, [{ response_range: { kvs: [] } }]) }), A)).toEqual({ kind: 'not-held' });
  });
});

describe('acquire', () => {
  it('takes an absent key, else refreshes our own, else reads the holder — one transaction', () => {
    const txn = acquireTxn(key, A, '1500', own);
    expect(txn.compare).toEqual([{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }]);
    expect(txn.success).toEqual([{ request_put: { key, value: A, lease: '1500' } }]);
    expect(txn.failure).toEqual([{ request_txn: refreshOwnTxn(key, A, '1500', own) }]);
  });

  it('a fresh win and a retried acquire whose first attempt committed both report the revision written', () => {
    expect(decodeAcquire(outcome({ succeeded: true }), A)).toEqual({ kind: 'written', revision: '42' });
    expect(decodeAcquire(outcome({ responses: nestedAnswer(true) }), A)).toEqual({ kind: 'written', revision: '42' });
  });

  it('a loser learns the holder from the same transaction', () => {
    expect(decodeAcquire(outcome({ responses: refreshRead(kv(B)) }), A)).toEqual({ kind: 'held', holder: kv(B) });
  });

  it('the same owner with other metadata is another holder, not us', () => {
    const withRun = Buffer.from([0xff, 1, 0, 0, 0, 1, 0x41, 0x72]);
    expect(decodeAcquire(outcome({ responses: refreshRead(kv(withRun)) }), A).kind).toBe('held');
  });

  it('a server without nested transaction results is reported, never read as a win', () => {
    expect(() => decodeAcquire(outcome({ responses: [{}] }), A)).toThrow(/nested transaction/);
  });
});

describe('transfer', () => {
  const txn = transferTxn(key, A, '41', B, '1500', own);

  it('hands over exactly the tenure named by value and revision, in one put — no delete', () => {
    expect(txn.compare).toEqual([
      { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
      { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: '41' },
    ]);
    expect(txn.success).toEqual([{ request_put: { key, value: B, lease: '1500' } }]);
    expect(JSON.stringify(txn)).not.toContain('request_delete_range');
  });

  it('a retried transfer that had already committed refreshes the new holder and reports success', () => {
    expect(txn.failure).toEqual([{ request_txn: refreshOwnTxn(key, B, '1500', own) }]);
    expect(decodeTransfer(outcome({ responses: nestedAnswer(true) }), A, B)).toEqual({ kind: 'written', revision: '42' });
  });

  it('reports the current revision when the owner holds the key as another write, false when nobody involved does', () => {
    expect(decodeTransfer(outcome({ responses: refreshRead(kv(A, { mod_revision: '45' })) }), A, B)).toEqual({ kind: 'from-elsewhere', revision: '45' });
    expect(decodeTransfer(outcome({ responses: refreshRead(kv(Buffer.from('C'))) }), A, B)).toEqual({ kind: 'not-held' });
    expect(decodeTransfer(outcome({ responses: refreshRead() }), A, B)).toEqual({ kind: 'not-held' });
  });
});

describe('release', () => {
  it('deletes only the exact write named by value and mod revision', () => {
    expect(releaseTxn(key, A, '41')).toEqual({
      compare: [
        { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
        { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: '41' },
      ],
      success: [{ request_delete_range: { key } }],
      failure: [{ request_range: { key } }],
    });
  });

  it('tells a later write of the same holder (retry against it) from a key that is not ours', () => {
    expect(decodeRelease(outcome({ succeeded: true }), A)).toEqual({ kind: 'deleted' });
    expect(decodeRelease(outcome({ responses: [{ response_range: { kvs: [kv(A, { mod_revision: '50' })] } }] }), A)).toEqual({ kind: 'moved', revision: '50' });
    expect(decodeRelease(outcome({ responses: [{ response_range: { kvs: [kv(B)] } }] }), A)).toEqual({ kind: 'not-held' });
    expect(decodeRelease(outcome({ responses: [{ response_range: { kvs: [] } }] }), A)).toEqual({ kind: 'not-held' });
  });
});

describe('adopting a key from a lease we did not mint', () => {
  it('keeps or moves only the version of the key that was read', () => {
    expect(keepLeaseTxn(key, A, '41', '77').compare).toEqual([
      { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
      { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: '41' },
      { key, target: CompareTarget.Lease, result: CompareResult.Equal, lease: '77' },
    ]);
    expect(keepLeaseTxn(key, A, '41', '77').success).toEqual([{ request_put: { key, value: A, ignore_lease: true } }]);
    expect(moveLeaseTxn(key, A, '41', '1500').success).toEqual([{ request_put: { key, value: A, lease: '1500' } }]);
    expect(decodeAdopt(outcome({ succeeded: true }))).toBe('42');
    expect(decodeAdopt(outcome({ succeeded: false }))).toBeUndefined();
  });
});

describe('delete one revision', () => {
  it('deletes whoever holds the key, but only that version of it', () => {
    expect(deleteRevisionTxn(key, '41').compare).toEqual([{ key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: '41' }]);
    expect(decodeDeleteRevision(outcome({ succeeded: true }))).toEqual({ deleted: true });
    expect(decodeDeleteRevision(outcome({ responses: [{ response_range: { kvs: [kv(B)] } }] }))).toEqual({ deleted: false, current: kv(B) });
  });
});

describe('read', () => {
  it('returns the stored bytes, revision and lease of a held key, undefined for a free one', () => {
    expect(readTxn(key).success).toEqual([{ request_range: { key } }]);
    expect(decodeRead(outcome({ succeeded: true, responses: [{ response_range: { kvs: [kv(A)] } }] }))).toEqual({ value: A, revision: '41', leaseId: '1500' });
    expect(decodeRead(outcome({ succeeded: true, responses: [{ response_range: { kvs: [] } }] }))).toBeUndefined();
  });
});
