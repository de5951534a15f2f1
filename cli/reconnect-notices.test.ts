import { describe, expect, it } from 'vitest';
import { duration, ReconnectNotices, streamCause } from './reconnect-notices.js';

describe('ReconnectNotices', () => {
  it('says an outage once when it begins, then at 10 s, 30 s, 1, 2 and 5 min and every 5 min, however often the stream fails', () => {
    const notices = new ReconnectNotices();
    const said: Array<[number, string]> = [];
    // etcd3 reports a failed try every 2.5 s (and twice at once, error then end) for an hour.
    for (let at = 0; at <= 3_600_000; at += 2500) {
      for (const n of [notices.disconnected(at), notices.disconnected(at)]) if (n) said.push([at, n.kind]);
    }
    expect(said.slice(0, 6)).toEqual([
      [0, 'down'],
      [10_000, 'still-down'],
      [30_000, 'still-down'],
      [60_000, 'still-down'],
      [120_000, 'still-down'],
      [300_000, 'still-down'],
    ]);
    expect(said.slice(6).map(([at]) => at)).toEqual(Array.from({ length: 11 }, (_, i) => 600_000 + i * 300_000));
  });

  it('says the return once, with how long it took; a stream that breaks again soon after is the same outage', () => {
    const notices = new ReconnectNotices();
    expect(notices.disconnected(0)).toEqual({ kind: 'down' });
    expect(notices.connected(4000)).toEqual({ kind: 'back', elapsedMs: 4000 });
    expect(notices.connected(4100)).toBeUndefined();
    // Flapping: up 2.5 s, down again; nothing until the outage's next reminder, then the next return is said again.
    expect(notices.disconnected(6500)).toBeUndefined();
    expect(notices.connected(7000)).toBeUndefined();
    expect(notices.disconnected(9500)).toBeUndefined();
    expect(notices.disconnected(10_500)).toEqual({ kind: 'still-down', elapsedMs: 10_500 });
    expect(notices.connected(11_000)).toEqual({ kind: 'back', elapsedMs: 11_000 });
    // Up for longer than 10 s: the next break is a new outage.
    expect(notices.disconnected(30_000)).toEqual({ kind: 'down' });
  });

  it('says nothing about a connection that never broke', () => {
    expect(new ReconnectNotices().connected(0)).toBeUndefined();
  });
});

describe('streamCause', () => {
  it("keeps gRPC's words and the address it names, without the resolver note", () => {
    const error = new Error('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:23791. Resolution note: ');
    expect(streamCause(error)).toBe('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:23791');
    expect(streamCause(new Error('14 UNAVAILABLE: Connection dropped'))).toBe('14 UNAVAILABLE: Connection dropped');
    expect(streamCause(undefined)).toBe('the stream ended');
    expect(streamCause(new Error(''))).toBe('the stream ended');
  });
});

describe('duration', () => {
  it('reads as seconds under a minute, then minutes and seconds', () => {
    expect(duration(9600)).toBe('10 s');
    expect(duration(125_000)).toBe('2 min 5 s');
    expect(duration(300_000)).toBe('5 min');
  });
});
