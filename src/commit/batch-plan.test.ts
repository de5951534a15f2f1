import { describe, expect, it } from 'vitest';
import { acquireTxn } from '../operations/acquire.js';
import { planBatch, requestBytes } from './batch-plan.js';

const op = (keyId: string, bytes = 10) => ({ keyId, bytes });

describe('batch planning', () => {
  it('takes distinct keys in queue order up to the op limit', () => {
    expect(planBatch([op('a'), op('b'), op('c')], new Set(), { maxOps: 2, maxBytes: 1e6 })).toEqual([0, 1]);
  });

  it('never puts one key twice in a transaction, and later ops on that key wait their turn', () => {
    const queue = [op('a'), op('b'), op('a'), op('c'), op('a')];
    expect(planBatch(queue, new Set(), { maxOps: 10, maxBytes: 1e6 })).toEqual([0, 1, 3]);
  });

  it('holds back every op on a key that is in a batch still in flight', () => {
    expect(planBatch([op('a'), op('b'), op('a')], new Set(['a']), { maxOps: 10, maxBytes: 1e6 })).toEqual([1]);
  });

  it('stays under the byte budget but always sends the first op, even an oversized one', () => {
    expect(planBatch([op('a', 600), op('b', 600)], new Set(), { maxOps: 10, maxBytes: 1000 })).toEqual([0]);
    expect(planBatch([op('a', 5000)], new Set(), { maxOps: 10, maxBytes: 1000 })).toEqual([0]);
  });

  it('estimates request size from the key and value bytes it carries', () => {
    const own = { lowest: '1', highest: '9' };
    const small = requestBytes(acquireTxn(Buffer.from('k'), Buffer.from('o'), '1', own));
    const big = requestBytes(acquireTxn(Buffer.from('k'), Buffer.from('o'.repeat(10_000)), '1', own));
    expect(big - small).toBeGreaterThanOrEqual(3 * 9_999);
  });
});
