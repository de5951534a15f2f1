import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventKeys, encodeName, parseTopicEntry, prefixEnd } from './event-keys.js';

const keys = new EventKeys('app/events/');
const wellFormed = fc.string({ minLength: 1, unit: 'binary' }).filter((s) => s.isWellFormed());

describe('event keys', () => {
  it('a topic prefix never covers another topic: enc(a)/ is never a prefix of enc(b)/ for a ≠ b', () => {
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        fc.pre(a !== b);
        expect(keys.topic(b).subarray(0, keys.topic(a).length).equals(keys.topic(a)) && keys.topic(b).length >= keys.topic(a).length).toBe(false);
      }),
    );
  });

  it("keeps a thread topic apart from the reply topics that extend its name (Mastra's idle-acceptance topics)", () => {
    const thread = 'agent.thread-stream.user%00t1';
    const reply = `${thread}.idle-acceptance.0b7c`;
    expect(keys.event(reply, 'x').subarray(0, keys.events(thread).length).equals(keys.events(thread))).toBe(false);
    expect(keys.topic('a').equals(keys.topic('a/b').subarray(0, keys.topic('a').length))).toBe(false);
  });

  it('reads back what it writes under one topic', () => {
    fc.assert(
      fc.property(wellFormed, wellFormed, (topic, group) => {
        const prefix = keys.topic(topic);
        expect(parseTopicEntry(prefix, keys.event(topic, 'p-1'))).toEqual({ kind: 'event', id: 'p-1' });
        expect(parseTopicEntry(prefix, keys.claim(topic, group, 'p-1'))).toEqual({ kind: 'claim', group, id: 'p-1' });
        expect(parseTopicEntry(prefix, keys.member(topic, group, 'm1'))).toEqual({ kind: 'member', group, member: 'm1' });
        expect(parseTopicEntry(prefix, keys.backlog(topic, group))).toEqual({ kind: 'backlog', group });
      }),
    );
  });

  it('ignores keys it did not write', () => {
    const prefix = keys.topic('t');
    expect(parseTopicEntry(prefix, Buffer.from('app/events/t/t/x/y'))).toBeUndefined();
    expect(parseTopicEntry(prefix, Buffer.from('other/t/e/1'))).toBeUndefined();
    expect(parseTopicEntry(prefix, prefix)).toBeUndefined();
  });

  it('rejects an empty or ill-formed topic or group, naming it', () => {
    expect(() => keys.events('')).toThrow(/^topic: /);
    expect(() => keys.claim('t', 'a\uD800', 'x')).toThrow(/^group: .*surrogate/);
    expect(() => encodeName('options.group', '')).toThrow(/options\.group/);
  });

  it('prefixEnd is the first key after every key with the prefix', () => {
    expect(prefixEnd(Buffer.from('ab'))).toEqual(Buffer.from('ac'));
    expect(prefixEnd(Buffer.from([0x61, 0xff]))).toEqual(Buffer.from([0x62]));
    expect(prefixEnd(Buffer.from([0xff]))).toEqual(Buffer.from([0]));
  });
});
