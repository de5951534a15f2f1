import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../wait-for.js';
import { FaultProxy } from './tcp-proxy.js';

/** An echo server that also records what reached it, to tell "sent" from "answered". */
interface EchoServer {
  readonly server: Server;
  readonly port: number;
  received(): string;
}

async function startEchoServer(): Promise<EchoServer> {
  let received = '';
  const server = createServer((socket) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      socket.write(chunk);
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('echo server has no port');
  return { server, port: address.port, received: () => received };
}

/** Collects what a client socket receives and whether it was reset. */
function record(socket: Socket): { text(): string; wasReset(): boolean } {
  let text = '';
  let reset = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => (reset = true));
  return { text: () => text, wasReset: () => reset };
}

/** Bytes on loopback move within milliseconds: poll often, give up soon. */
const until = (condition: () => boolean) => waitFor('the proxied bytes', condition, { timeoutMs: 2_000, intervalMs: 10 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FaultProxy', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup() {
    const echo = await startEchoServer();
    cleanups.push(() => new Promise((resolve) => echo.server.close(resolve)));
    const proxy = await FaultProxy.listen({ targetPort: echo.port });
    cleanups.push(() => proxy.close());
    const client = connect(proxy.port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    await once(client, 'connect');
    return { echo, proxy, client, seen: record(client) };
  }

  it('forwards bytes both ways when no fault is set', async () => {
    const { client, seen } = await setup();
    client.write('hello');
    await until(() => seen.text() === 'hello');
  });

  it('a blackhole delivers nothing either way but keeps the connection, then delivers on heal', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ blackhole: true });
    client.write('held');
    await sleep(300);
    expect(echo.received()).toBe('');
    expect(seen.text()).toBe('');
    expect(client.destroyed).toBe(false);

    proxy.setFaults({ blackhole: false });
    await until(() => seen.text() === 'held');
  });

  it('a blackhole also holds bytes already on their way back to the client', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ latencyMs: 200 });
    client.write('late');
    await until(() => echo.received() === 'late');
    proxy.setFaults({ blackhole: true });
    await sleep(400);
    expect(seen.text()).toBe('');
    proxy.setFaults({ blackhole: false });
    await until(() => seen.text() === 'late');
  });

  it('dropped responses reach the server but never the client, and clearing the fault resets', async () => {
    const { proxy, client, echo, seen } = await setup();
    proxy.setFaults({ dropResponses: true });
    client.write('lost reply');
    await until(() => echo.received() === 'lost reply');
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

  it('faults for one identified sender leave other senders alone', async () => {
    const echo = await startEchoServer();
    cleanups.push(() => new Promise((resolve) => echo.server.close(resolve)));
    // Senders name themselves in their first line, like etcd peers do in an HTTP header.
    const proxy = await FaultProxy.listen({
      targetPort: echo.port,
      identifySource: (head) => {
        const text = head.toString();
        const end = text.indexOf('\n');
        return end < 0 ? { complete: false } : { complete: true, source: text.slice(0, end) };
      },
    });
    cleanups.push(() => proxy.close());
    proxy.setSourceFaults('a', { blackhole: true });

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

    proxy.setSourceFaults('a', { blackhole: false });
    await until(() => seenA.text() === 'a\n');
  });
});
