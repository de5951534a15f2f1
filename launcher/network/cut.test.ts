import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { frame, PREFACE } from './http2.fixtures.js';
import { RST_STREAM } from './http2-frames.js';
import { cleanUpAfterEach, connectTo, proxiedEcho, record, sleep, until } from './proxy.fixtures.js';
import { ORPHAN_GRACE_MS } from './proxied-connection.js';

/** A cut link: what is sent into it arrives late, even when its sender has given up (see LinkFaults.cut). */
describe('FaultProxy: a cut link', () => {
  const cleanups = cleanUpAfterEach();

  it('holds what open connections send both ways, and delivers it when the cut ends', async () => {
    const { echo, proxy } = await proxiedEcho(cleanups);
    const { client, seen } = await connectTo(proxy, cleanups);
    proxy.setFaults({ cut: true });
    client.write('held');
    await sleep(300);
    expect(echo.received().toString()).toBe('');
    expect(client.destroyed).toBe(false);

    proxy.setFaults({ cut: false });
    await until(() => seen.text() === 'held');
  });

  it('refuses new connections at once, and accepts them again once the cut ends', async () => {
    const { proxy } = await proxiedEcho(cleanups);
    proxy.setFaults({ cut: true });
    const started = performance.now();
    const refused = connect(proxy.port, '127.0.0.1');
    cleanups.push(() => refused.destroy());
    const seen = record(refused);
    await until(() => seen.wasReset() || seen.closed());
    expect(performance.now() - started).toBeLessThan(500);
    expect(proxy.refused).toBe(1);

    proxy.setFaults({ cut: false });
    const { client, seen: after } = await connectTo(proxy, cleanups);
    client.write('back');
    await until(() => after.text() === 'back');
  });

  it('delivers what a client sent into the cut even after the client reset its side, then closes after a grace', async () => {
    const { echo, proxy } = await proxiedEcho(cleanups);
    const { client } = await connectTo(proxy, cleanups);
    proxy.setFaults({ cut: true });
    client.write('late request');
    await sleep(100); // the proxy reads it into its own queue
    client.resetAndDestroy();
    await sleep(100);
    expect(echo.received().toString()).toBe('');

    expect(proxy.lateDeliveries).toBe(0);
    proxy.setFaults({ cut: false });
    await until(() => echo.received().toString() === 'late request');
    expect(proxy.lateDeliveries).toBe(1);
    // The server keeps the connection for a while, so it can act on the request before it sees it close.
    const deliveredAt = performance.now();
    await until(() => echo.ended() === 1, ORPHAN_GRACE_MS + 2_000);
    expect(performance.now() - deliveredAt).toBeGreaterThan(ORPHAN_GRACE_MS - 200);
  });

  it('on an HTTP/2 link, a client cancelling a held request loses its connection; the request lands without the cancellation', async () => {
    const { echo, proxy } = await proxiedEcho(cleanups, { http2Clients: true });
    const { client, seen } = await connectTo(proxy, cleanups);
    const request = Buffer.concat([PREFACE, frame(0x1, 1, Buffer.from('txn headers')), frame(0x0, 1, Buffer.from('txn body'))]);
    client.write(PREFACE);
    await until(() => echo.received().length === PREFACE.length);
    proxy.setFaults({ cut: true });
    client.write(request.subarray(PREFACE.length));
    client.write(frame(RST_STREAM, 1, Buffer.alloc(4)));
    await until(() => seen.wasReset() || seen.closed());

    proxy.setFaults({ cut: false });
    await until(() => echo.received().length === request.length);
    await sleep(100);
    expect(echo.received()).toEqual(request);
  });

  it('outside a cut, a cancellation is forwarded like any other frame', async () => {
    const { echo, proxy } = await proxiedEcho(cleanups, { http2Clients: true });
    const { client, seen } = await connectTo(proxy, cleanups);
    const stream = Buffer.concat([PREFACE, frame(0x1, 1, Buffer.from('headers')), frame(RST_STREAM, 1, Buffer.alloc(4))]);
    client.write(stream);
    await until(() => echo.received().length === stream.length);
    expect(echo.received()).toEqual(stream);
    expect(seen.wasReset()).toBe(false);
  });
});
