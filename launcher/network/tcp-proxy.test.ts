import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach, connectTo, proxiedEcho, record, sleep, until } from './proxy.fixtures.js';
import { FaultProxy } from './tcp-proxy.js';

const BLACKHOLE = { holdRequests: true, holdResponses: true };
const HEALED = { holdRequests: false, holdResponses: false };

describe('FaultProxy', () => {
  const cleanups = cleanUpAfterEach();

  async function setup() {
    const { echo, proxy } = await proxiedEcho(cleanups);
    const { client, seen } = await connectTo(proxy, cleanups);
    return { echo, proxy, client, seen };
  }

  it('forwards bytes both ways when no fault is set', async () => {
    const { client, seen } = await setup();
    client.write('hello');
    await until(() => seen.text() === 'hello');
  });

  it('a blackhole delivers nothing either way but keeps the connection, then delivers on heal', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults(BLACKHOLE);
    client.write('held');
    await sleep(300);
    expect(echo.received().toString()).toBe('');
    expect(seen.text()).toBe('');
    expect(client.destroyed).toBe(false);

    proxy.setFaults(HEALED);
    await until(() => seen.text() === 'held');
  });

  it('a blackhole also holds bytes already on their way back to the client', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ latencyMs: 200 });
    client.write('late');
    await until(() => echo.received().toString() === 'late');
    proxy.setFaults(BLACKHOLE);
    await sleep(400);
    expect(seen.text()).toBe('');
    proxy.setFaults(HEALED);
    await until(() => seen.text() === 'late');
  });

  it('holding one direction delivers the other: requests held, answers to earlier requests still arrive', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ latencyMs: 200 });
    client.write('before ');
    await until(() => echo.received().toString() === 'before ');
    proxy.setFaults({ latencyMs: 0, holdRequests: true });
    client.write('during');
    await until(() => seen.text() === 'before ');
    await sleep(200);
    expect(echo.received().toString()).toBe('before ');

    proxy.setFaults({ holdRequests: false });
    await until(() => seen.text() === 'before during');
  });

  it('holding answers only lets requests through and keeps their answers until healed', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ holdResponses: true });
    client.write('one way');
    await until(() => echo.received().toString() === 'one way');
    await sleep(200);
    expect(seen.text()).toBe('');

    proxy.setFaults({ holdResponses: false });
    await until(() => seen.text() === 'one way');
  });

  it('dropped responses reach the server but never the client, and clearing the fault resets', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ dropResponses: true });
    client.write('lost reply');
    await until(() => echo.received().toString() === 'lost reply');
    await sleep(200);
    expect(seen.text()).toBe('');

    proxy.setFaults({ dropResponses: false });
    await until(() => seen.wasReset() || client.destroyed);
  });

  it('latency delays each direction by the configured amount', async () => {
    const { proxy, client, seen } = await setup();
    proxy.setFaults({ latencyMs: 150 });
    const started = Date.now();
    client.write('slow');
    await until(() => seen.text() === 'slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('jitter varies the delay of each round trip within latency..latency+jitter each way', async () => {
    const { proxy, client, seen } = await setup();
    proxy.setFaults({ latencyMs: 20, jitterMs: 80 });
    const trips: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const answered = once(client, 'data');
      client.write(`<${i}>`);
      await answered;
      trips.push(performance.now() - started);
    }
    expect(seen.text()).toBe(Array.from({ length: 10 }, (_, i) => `<${i}>`).join(''));
    expect(Math.min(...trips)).toBeGreaterThanOrEqual(39);
    expect(Math.max(...trips)).toBeLessThan(2 * (20 + 80) + 100);
    // Without jitter every trip takes ~40 ms; ten draws of 0..80 ms each way cannot all agree within 20 ms.
    expect(Math.max(...trips) - Math.min(...trips)).toBeGreaterThan(20);
  });

  it('jitter never reorders the bytes of a connection', async () => {
    const { proxy, client, seen } = await setup();
    proxy.setFaults({ latencyMs: 5, jitterMs: 50 });
    const sent: string[] = [];
    for (let i = 0; i < 50; i++) {
      sent.push(`<${i}>`);
      client.write(`<${i}>`);
      if (i % 5 === 0) await sleep(3); // separate chunks, each with its own draw
    }
    await until(() => seen.text().length === sent.join('').length);
    expect(seen.text()).toBe(sent.join(''));
  });

  it('faults for one identified sender leave other senders alone', async () => {
    // Senders name themselves in their first line, like etcd peers do in an HTTP header.
    const { proxy } = await proxiedEcho(cleanups, {
      identifySource: (head) => {
        const text = head.toString();
        const end = text.indexOf('\n');
        return end < 0 ? { complete: false } : { complete: true, source: text.slice(0, end) };
      },
    });
    proxy.setSourceFaults('a', BLACKHOLE);

    const fromA = connect(proxy.port, '127.0.0.1');
    const fromB = connect(proxy.port, '127.0.0.1');
    cleanups.push(() => fromA.destroy(), () => fromB.destroy());
    const seenA = record(fromA);
    const seenB = record(fromB);
    fromA.write('a\n');
    fromB.write('b\n');
    await until(() => seenB.text() === 'b\n');
    await sleep(200);
    expect(seenA.text()).toBe('');

    proxy.setSourceFaults('a', HEALED);
    await until(() => seenA.text() === 'a\n');
  });
});
