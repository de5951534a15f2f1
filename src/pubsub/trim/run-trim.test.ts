import type { Event } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { isTrimmed, trimTxns } from './run-trim.js';

const event = (runId: string | undefined, data: Record<string, unknown> = {}) => ({ type: 't', id: 'x', createdAt: new Date(), runId, data }) as unknown as Event;

describe('isTrimmed', () => {
  it("selects every event of the run, and no other run's", () => {
    expect(isTrimmed(event('a'), { runId: 'a' })).toBe(true);
    expect(isTrimmed(event('b'), { runId: 'a' })).toBe(false);
    expect(isTrimmed(event(undefined), { runId: 'a' })).toBe(false);
  });

  it('with producedBefore, only unpinned events produced at or before it', () => {
    const selection = { runId: 'a', producedBefore: 200 };
    expect(isTrimmed(event('a', { producedAt: 200 }), selection)).toBe(true);
    expect(isTrimmed(event('a', { producedAt: 201 }), selection)).toBe(false);
    expect(isTrimmed(event('a', { producedAt: 100, pinned: true }), selection)).toBe(false);
    expect(isTrimmed(event('a'), selection)).toBe(false);
    expect(isTrimmed(event('a', { producedAt: '100' }), selection)).toBe(false);
  });
});

describe('trimTxns', () => {
  it('splits the deletes into transactions of at most perTxn operations', () => {
    const keys = Array.from({ length: 5 }, (_, i) => Buffer.from(`k${i}`));
    const txns = trimTxns(keys, 2);
    expect(txns.map((t) => t.success?.length)).toEqual([2, 2, 1]);
    expect(txns.flatMap((t) => t.success ?? []).map((op) => op.request_delete_range?.key?.toString())).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(trimTxns([], 2)).toEqual([]);
  });
});
