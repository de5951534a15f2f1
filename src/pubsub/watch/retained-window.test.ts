import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../../operations/etcd-txn.js';
import { RetainedWindow } from './retained-window.js';

const kv = (rev: number, key: string, bytes = 10): KeyValue => ({
  key: Buffer.from(key),
  value: Buffer.alloc(bytes),
  mod_revision: String(rev),
  create_revision: String(rev),
  lease: '0',
});
const keys = (w: RetainedWindow) => w.events().map((e) => `${e.mod_revision}:${e.key.toString()}`);

describe('retained window', () => {
  it('holds nothing until filled, then the read plus every change since, in topic order', () => {
    const w = new RetainedWindow(1000);
    w.apply('put', kv(5, 'x'));
    expect(w.complete).toBe(false);
    expect(w.events()).toEqual([]);
    expect(w.fill([kv(2, 'a'), kv(3, 'b'), kv(3, 'c')], [{ type: 'put', kv: kv(4, 'd') }, { type: 'delete', kv: kv(5, 'b') }])).toBe(true);
    expect(keys(w)).toEqual(['2:a', '3:c', '4:d']);
    w.apply('put', kv(6, 'e'));
    w.apply('delete', kv(7, 'a'));
    expect(keys(w)).toEqual(['3:c', '4:d', '6:e']);
  });

  it('a watch behind the read brings events the read had: they keep their place', () => {
    const w = new RetainedWindow(1000);
    w.fill([kv(2, 'a'), kv(3, 'b')], [{ type: 'put', kv: kv(2, 'a') }]);
    w.apply('put', kv(3, 'b'));
    w.apply('put', kv(4, 'c'));
    expect(keys(w)).toEqual(['2:a', '3:b', '4:c']);
  });

  it('past its cap it holds nothing, and says so, until filled again', () => {
    const w = new RetainedWindow(25);
    expect(w.fill([kv(2, 'a'), kv(3, 'b')], [])).toBe(true);
    w.apply('put', kv(4, 'c'));
    expect(w.complete).toBe(false);
    expect(w.events()).toEqual([]);
    w.apply('delete', kv(5, 'a'));
    w.apply('put', kv(6, 'd'));
    expect(w.events()).toEqual([]);
    expect(w.fill([kv(2, 'a'), kv(3, 'b'), kv(4, 'c')], [])).toBe(false);
    expect(w.fill([kv(4, 'c')], [{ type: 'put', kv: kv(6, 'd') }])).toBe(true);
    expect(keys(w)).toEqual(['4:c', '6:d']);
  });

  it('an event written again keeps its place; a later write of one it does not hold is no new event', () => {
    const w = new RetainedWindow(1000);
    w.fill([kv(2, 'a'), kv(3, 'b')], []);
    w.apply('put', { ...kv(5, 'a', 12), create_revision: '2' });
    w.apply('put', { ...kv(6, 'z'), create_revision: '1' });
    expect(keys(w)).toEqual(['5:a', '3:b']);
    expect(w.events()[0]!.value.length).toBe(12);
  });

  it('a read keeps every event it found, one written again (moved to another lease) included, in the order given', () => {
    const w = new RetainedWindow(1000);
    w.fill([{ ...kv(9, 'a'), create_revision: '2' }, kv(3, 'b')], []);
    expect(keys(w)).toEqual(['9:a', '3:b']);
  });
});
