import { describe, expect, it } from 'vitest';
import { acquireTxn } from '../operations/acquire.js';
import { nested } from '../operations/etcd-txn.js';
import { releaseTxn } from '../operations/release.js';
import { renewTxn } from '../operations/renew.js';
import { transferTxn } from '../operations/transfer.js';
import { addTo, ETCD_MAX_TXN_OPS, fits, nestingCost, requestBytes, type BatchFill } from './batch-plan.js';

const version = { revision: '7', lease: '3' };
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
    // acquire: 1 compare, 1 put, 1 read; renew: 2 compares.
    expect(nestingCost(acquireTxn(key, value, '5'))).toBe(1);
    expect(nestingCost(renewTxn(key, value, version, '5', false))).toBe(2);
    expect(nestingCost({ compare: [], success: [nested(renewTxn(key, value, version, '5', false))], failure: [] })).toBe(3);
  });

  it('fills a batch up to what etcd admits: 127 acquires or 126 renewals under the default --max-txn-ops', () => {
    const acquire = { bytes: 100, nesting: nestingCost(acquireTxn(key, value, '5')) };
    const renew = { bytes: 100, nesting: nestingCost(renewTxn(key, value, version, '5', false)) };
    expect(capacity(acquire)).toBe(127);
    expect(capacity(renew)).toBe(126);
    expect(capacity(renew, { ...limits, maxOps: 64 })).toBe(64);
    // A mixed batch is bounded by its deepest member: a renewal has one compare more than an acquire.
    const release = { bytes: 100, nesting: nestingCost(releaseTxn(key, value, '7')) };
    const fill = empty();
    for (let i = 0; i < 126; i++) addTo(fill, acquire);
    expect(fits(fill, acquire, limits)).toBe(true);
    expect(fits(fill, release, limits)).toBe(false);
    expect(nestingCost(transferTxn(key, value, '7', Buffer.from('p'), '5'))).toBe(2);
  });

  it('stays under the byte budget but always takes the first op, even an oversized one', () => {
    expect(capacity({ bytes: 600, nesting: 1 }, { ...limits, maxBytes: 1000 })).toBe(1);
    expect(capacity({ bytes: 5000, nesting: 1 }, { ...limits, maxBytes: 1000 })).toBe(1);
    expect(capacity({ bytes: 300, nesting: 1 }, { ...limits, maxBytes: 1000 })).toBe(3);
  });

  it('estimates request size from the key and value bytes it carries', () => {
    const small = requestBytes(renewTxn(Buffer.from('k'), Buffer.from('o'), version, '1', false));
    const big = requestBytes(renewTxn(Buffer.from('k'), Buffer.from('o'.repeat(10_000)), version, '1', false));
    expect(big - small).toBeGreaterThanOrEqual(2 * 9_999);
  });
});
