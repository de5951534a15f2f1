import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../../operations/etcd-txn.js';
import { FeedMember } from './feed-member.js';

const kv = (rev: number, key: string): KeyValue => ({ key: Buffer.from(key), value: Buffer.from(`${rev}:${key}`), mod_revision: String(rev), create_revision: String(rev), lease: '0' });

function member(startFrom: 'earliest' | 'latest') {
  const got: string[] = [];
  return { got, m: new FeedMember(startFrom, (value) => got.push(value.toString())) };
}

describe('feed member', () => {
  it('buffers while joining, then gets the retained events and the buffer, each once, and live events at once', async () => {
    const { got, m } = member('earliest');
    m.offer(kv(5, 'c'));
    m.offer(kv(6, 'd'));
    expect(got).toEqual([]);
    expect(m.waiting).toBe(false);
    m.startAtRetained();
    expect(m.waiting).toBe(true);
    // The catch-up already holds 5:c (the read ran after it was buffered): it comes once.
    m.catchUp([kv(3, 'a'), kv(4, 'b'), kv(5, 'c')]);
    await m.live;
    m.offer(kv(7, 'e'));
    expect(got).toEqual(['3:a', '4:b', '5:c', '6:d', '7:e']);
  });

  it("'latest' counts everything up to the feed's position as seen", () => {
    const { got, m } = member('latest');
    m.offer(kv(5, 'c'));
    m.startAfter(5n);
    m.catchUp([]);
    m.offer(kv(6, 'd'));
    expect(got).toEqual(['6:d']);
  });

  it('after a lost watch it buffers again and a re-read gives it only what it has not had', () => {
    const { got, m } = member('earliest');
    m.startAtRetained();
    m.catchUp([kv(3, 'a')]);
    m.offer(kv(4, 'b'));
    m.rejoin();
    m.offer(kv(9, 'e'));
    expect(m.waiting).toBe(true);
    m.catchUp([kv(3, 'a'), kv(4, 'b'), kv(7, 'c'), kv(8, 'd')]);
    expect(got).toEqual(['3:a', '4:b', '7:c', '8:d', '9:e']);
  });

  it('a stopped member gets nothing, and its wait for going live ends', async () => {
    const { got, m } = member('earliest');
    m.stop();
    await m.live;
    m.startAtRetained();
    m.catchUp([kv(3, 'a')]);
    m.offer(kv(4, 'b'));
    expect(got).toEqual([]);
    expect(m.active).toBe(false);
  });
});
