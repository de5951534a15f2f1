import { describe, expect, it } from 'vitest';
import { acquireTxn } from '../operations/acquire.js';
import { nested } from '../operations/etcd-txn.js';
import { releaseTxn } from '../operations/release.js';
import { renewTxn } from '../operations/renew.js';
import { transferTxn } from '../operations/transfer.js';
import { addTo, ETCD_MAX_TXN_OPS, fits, nestingCost, requestBytes, type BatchFill } from './batch-plan.js';

const own = { lowest: '1', highest: '9' };
const key = Buffer.from('k');
const value = Buffer.from('o');
const limits = { maxOps: 1000, maxBytes: 1e9, maxTxnOps: ETCD_MAX_TXN_OPS };
const empty = (): BatchFill => ({ count: 0, bytes: 0, deepest: 0 });

/** How many copies of `op` one batch takes under `limits`. */
function capacity(op: { bytes: number; nesting: number }, l = limits): number {
  const fill = empty();
  while (fits(fill, op, l)) addTo(fill, op);
  return fill.count;
}

describe('batch planning', () => {
  it("counts etcd's --max-txn-ops along the deepest chain of nested transactions", () => {
    // acquire: 1 op, its refresh: 3 compares, its keep-branch: 3 compares.
    expect(nestingCost(acquireTxn(key, value, '5', own))).toBe(7);
    expect(nestingCost(renewTxn(key, value, '5', own))).toBe(6);
    expect(nestingCost({ compare: [], success: [nested(renewTxn(key, value, '5', own))], failure: [] })).toBe(7);
  });

  it('fills a batch up to what etcd admits: 121 acquires or 122 renewals under the default --max-txn-ops (measured on etcd 3.4)', () => {
    const acquire = { bytes: 100, nesting: nestingCost(acquireTxn(key, value, '5', own)) };
    const renew = { bytes: 100, nesting: nestingCost(renewTxn(key, value, '5', own)) };
    expect(capacity(acquire)).toBe(121);
    expect(capacity(renew)).toBe(122);
    expect(capacity(renew, { ...limits, maxOps: 64 })).toBe(64);
    // A mixed batch is bounded by its deepest member: a transfer nests one level deeper than an acquire.
    const transfer = { bytes: 100, nesting: nestingCost(transferTxn(key, value, '7', Buffer.from('p'), '5', own)) };
    const release = { bytes: 100, nesting: nestingCost(releaseTxn(key, value, '7')) };
    expect(capacity(transfer)).toBe(120);
    const fill = empty();
    for (let i = 0; i < 122; i++) addTo(fill, release);
    expect(fits(fill, release, limits)).toBe(true);
    expect(fits(fill, transfer, limits)).toBe(false);
  });

  it('stays under the byte budget but always takes the first op, even an oversized one', () => {
    expect(capacity({ bytes: 600, nesting: 1 }, { ...limits, maxBytes: 1000 })).toBe(1);
    expect(capacity({ bytes: 5000, nesting: 1 }, { ...limits, maxBytes: 1000 })).toBe(1);
    expect(capacity({ bytes: 300, nesting: 1 }, { ...limits, maxBytes: 1000 })).toBe(3);
  });

  it('estimates request size from the key and value bytes it carries', () => {
    const small = requestBytes(acquireTxn(Buffer.from('k'), Buffer.from('o'), '1', own));
    const big = requestBytes(acquireTxn(Buffer.from('k'), Buffer.from('o'.repeat(10_000)), '1', own));
    expect(big - small).toBeGreaterThanOrEqual(3 * 9_999);
  });
});
