import { describe, expect, it } from 'vitest';
import { acquireTxn, decodeAcquire } from './acquire.js';
import type { TxnOutcome } from './etcd-txn.js';
import { decodeRead, readTxn } from './read-lease.js';
import { releaseTxn } from './release.js';
import { decodeRenew, renewTxn } from './renew.js';
import { decodeTransfer, transferTxn } from './transfer.js';

const key = Buffer.from('p/res\u0000thr', 'utf8');
const kv = (owner: string) => ({ key, value: Buffer.from(owner), mod_revision: '41', create_revision: '7', lease: '99' });
const outcome = (o: Partial<TxnOutcome>): TxnOutcome => ({ succeeded: false, responses: [], revision: '42', ...o });
const nestedResult = (succeeded: boolean, responses: TxnOutcome['responses'] = []) => [
  { response_txn: { succeeded, responses } },
];

describe('acquire transaction', () => {
  it('writes only when the key is absent, else refreshes only our own value, else reads the holder', () => {
    const txn = acquireTxn(key, 'A', '5');
    expect(txn.compare).toEqual([{ key, target: 1, result: 0, create_revision: 0 }]);
    expect(txn.success).toEqual([{ request_put: { key, value: Buffer.from('A'), lease: '5' } }]);
    const inner = txn.failure![0]!.request_txn!;
    expect(inner.compare).toEqual([{ key, target: 3, result: 0, value: Buffer.from('A') }]);
    expect(inner.success).toEqual(txn.success);
    expect(inner.failure).toEqual([{ request_range: { key } }]);
  });

  it('a fresh win reports the transaction revision as fencing token', () => {
    expect(decodeAcquire(outcome({ succeeded: true }), 'A')).toEqual({ acquired: true, owner: 'A', fencingToken: '42' });
  });

  it('a retried acquire whose first attempt committed reports success, not a loss to itself', () => {
    expect(decodeAcquire(outcome({ responses: nestedResult(true) }), 'A')).toEqual({
      acquired: true,
      owner: 'A',
      fencingToken: '42',
    });
  });

  it('a loser learns the holder from the same transaction', () => {
    const responses = nestedResult(false, [{ response_range: { kvs: [kv('B')] } }]);
    expect(decodeAcquire(outcome({ responses }), 'A')).toEqual({ acquired: false, owner: 'B' });
  });

  it('a server without nested transaction results is reported, never read as a win', () => {
    expect(() => decodeAcquire(outcome({ responses: [{}] }), 'A')).toThrow(/nested transaction/);
  });
});

describe('renew, release and transfer transactions', () => {
  it('renew and release compare the stored owner value inside the transaction that writes', () => {
    expect(renewTxn(key, 'A', '5').compare).toEqual([{ key, target: 3, result: 0, value: Buffer.from('A') }]);
    expect(releaseTxn(key, 'A')).toEqual({
      compare: [{ key, target: 3, result: 0, value: Buffer.from('A') }],
      success: [{ request_delete_range: { key } }],
      failure: [],
    });
    expect(decodeRenew(outcome({ succeeded: true }))).toBe(true);
    expect(decodeRenew(outcome({ succeeded: false }))).toBe(false);
  });

  it('transfer swaps the value in one put — no delete, so the key is never free', () => {
    const txn = transferTxn(key, 'A', 'B', '5');
    expect(txn.success).toEqual([{ request_put: { key, value: Buffer.from('B'), lease: '5' } }]);
    expect(JSON.stringify(txn)).not.toContain('request_delete_range');
  });

  it('a retried transfer that had already committed reports true', () => {
    const inner = transferTxn(key, 'A', 'B', '5').failure![0]!.request_txn!;
    expect(inner.compare).toEqual([{ key, target: 3, result: 0, value: Buffer.from('B') }]);
    expect(decodeTransfer(outcome({ succeeded: false, responses: nestedResult(true) }))).toBe(true);
  });

  it('a transfer from an owner who lost the key reports false', () => {
    expect(decodeTransfer(outcome({ succeeded: false, responses: nestedResult(false) }))).toBe(false);
  });
});

describe('read', () => {
  it('decodes owner, fencing token and lease of a held key, undefined for a free one', () => {
    expect(readTxn(key).success).toEqual([{ request_range: { key } }]);
    expect(decodeRead(outcome({ succeeded: true, responses: [{ response_range: { kvs: [kv('A')] } }] }))).toEqual({
      owner: 'A',
      fencingToken: '41',
      leaseId: '99',
    });
    expect(decodeRead(outcome({ succeeded: true, responses: [{ response_range: { kvs: [] } }] }))).toBeUndefined();
  });
});
