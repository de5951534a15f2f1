import { CompareResult, CompareTarget } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { acquireTxn, decodeAcquire } from './acquire.js';
import { decodeAdopt, keepLeaseTxn, moveLeaseTxn } from './adopt-lease.js';
import { decodeDeleteRevision, deleteRevisionTxn } from './delete-revision.js';
import type { KeyValue, ResponseOp, TxnOutcome } from './etcd-txn.js';
import { decodeRead, readTxn } from './read-lease.js';
import { decodeRefresh, refreshTxn } from './refresh-own.js';
import { decodeRelease, releaseTxn } from './release.js';
import { decodeTransfer, transferTxn } from './transfer.js';

const key = Buffer.from('p/res\u0000thr', 'utf8');
const A = Buffer.from('A');
const B = Buffer.from('B');
const kv = (value: Buffer, extra: Partial<KeyValue> = {}): KeyValue => ({
  key,
  value,
  mod_revision: '41',
  create_revision: '7',
  lease: '1500',
  ...extra,
});
const outcome = (o: Partial<TxnOutcome>): TxnOutcome => ({ succeeded: false, responses: [], revision: '42', ...o });
/** The answer of a transaction whose compare failed and whose failure branch read the key. */
const readAnswer = (found?: KeyValue): ResponseOp[] => [{ response_range: { kvs: found ? [found] : [] } }];

describe('refresh of a key we hold: one exact version, never onto an earlier-ending lease', () => {
  const version = { revision: '41', lease: '1200' };

  it('writes only while the key is still that version (value and mod revision), on the call\u2019s lease or keeping its own', () => {
    const move = refreshTxn(key, A, version, '1500', false);
    expect(move.compare).toEqual([
      { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
      { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: '41' },
    ]);
    expect(move.success).toEqual([{ request_put: { key, value: A, lease: '1500' } }]);
    expect(move.failure).toEqual([{ request_range: { key } }]);
    expect(refreshTxn(key, A, version, '1500', true).success).toEqual([{ request_put: { key, value: A, ignore_lease: true } }]);
    expect(JSON.stringify(move)).not.toContain('request_txn');
  });

  it('reports written, moved for our value as another version, not-held otherwise', () => {
    expect(decodeRefresh(outcome({ succeeded: true }), A)).toEqual({ kind: 'written', revision: '42' });
    const later = kv(A, { mod_revision: '45' });
    expect(decodeRefresh(outcome({ responses: readAnswer(later) }), A)).toEqual({ kind: 'moved', kv: later });
    expect(decodeRefresh(outcome({ responses: readAnswer(kv(B)) }), A)).toEqual({ kind: 'not-held', kv: kv(B) });
    expect(decodeRefresh(outcome({ responses: readAnswer() }), A)).toEqual({ kind: 'not-held' });
  });
});

describe('acquire', () => {
  it('takes an absent key, else reads it — one compare, no nested branches', () => {
    expect(acquireTxn(key, A, '1500')).toEqual({
      compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key, value: A, lease: '1500' } }],
      failure: [{ request_range: { key } }],
    });
  });

  it('a fresh win reports the revision written; our own value read back is ours to refresh (a re-acquire, or a retry whose first attempt committed)', () => {
    expect(decodeAcquire(outcome({ succeeded: true }), A)).toEqual({ kind: 'written', revision: '42' });
    expect(decodeAcquire(outcome({ responses: readAnswer(kv(A)) }), A)).toEqual({ kind: 'mine', kv: kv(A) });
  });

  it('a loser learns the holder from the same transaction', () => {
    expect(decodeAcquire(outcome({ responses: readAnswer(kv(B)) }), A)).toEqual({ kind: 'held', holder: kv(B) });
  });

  it('the same owner with other metadata is another holder, not us', () => {
    const withRun = Buffer.from([0xff, 1, 0, 0, 0, 1, 0x41, 0x72]);
    expect(decodeAcquire(outcome({ responses: readAnswer(kv(withRun)) }), A).kind).toBe('held');
  });
});

describe('transfer', () => {
  const txn = transferTxn(key, A, '41', B, '1500');

  it('hands over exactly the tenure named by value and revision, in one put — no delete', () => {
    expect(txn.compare).toEqual([
      { key, target: CompareTarget.Value, result: CompareResult.Equal, value: A },
      { key, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: '41' },
    ]);
    expect(txn.success).toEqual([{ request_put: { key, value: B, lease: '1500' } }]);
    expect(txn.failure).toEqual([{ request_range: { key } }]);
    expect(JSON.stringify(txn)).not.toContain('request_delete_range');
  });

  it('a retried transfer that had already committed finds the new holder, to be refreshed', () => {
    expect(decodeTransfer(outcome({ succeeded: true }), A, B)).toEqual({ kind: 'written', revision: '42' });
    expect(decodeTransfer(outcome({ responses: readAnswer(kv(B)) }), A, B)).toEqual({ kind: 'to-holds', kv: kv(B) });
  });

  it('reports the current revision when the owner holds the key as another write, false when nobody involved does', () => {
    expect(decodeTransfer(outcome({ responses: readAnswer(kv(A, { mod_revision: '45' })) }), A, B)).toEqual({ kind: 'from-elsewhere', revision: '45' });
    expect(decodeTransfer(outcome({ responses: readAnswer(kv(Buffer.from('C'))) }), A, B)).toEqual({ kind: 'not-held' });
    expect(decodeTransfer(outcome({ responses: readAnswer() }), A, B)).toEqual({ kind: 'not-held' });
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
