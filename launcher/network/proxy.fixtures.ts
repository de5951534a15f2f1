/**
 * A server and a client recorder for the proxy's unit tests (no etcd): they tell "sent" from
 * "answered", and "the server saw the connection end" from "it is still open".
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import { waitFor } from '../wait-for.js';
import { FaultProxy, type FaultProxyOptions } from './tcp-proxy.js';

/**
 * The cleanups a test registers (servers, proxies, sockets), run newest first after each test of the calling
 * describe block, also when the test failed.
 */
export function cleanUpAfterEach(): Array<() => unknown> {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

export interface EchoServer {
  readonly server: Server;
  readonly port: number;
  /** Every byte that reached the server, over all connections, in arrival order. */
  received(): Buffer;
  /** Connections whose client side the server saw end (FIN) or reset. */
  ended(): number;
}

/** Echoes every chunk back on the connection it came from. */
async function startEchoServer(): Promise<EchoServer> {
  const chunks: Buffer[] = [];
  let ended = 0;
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      socket.write(chunk);
    });
    socket.on('end', () => {
      ended += 1;
      socket.end();
    });
    socket.on('error', () => (ended += 1));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('echo server has no port');
  return { server, port: address.port, received: () => Buffer.concat(chunks), ended: () => ended };
}

export interface SocketRecord {
  text(): string;
  wasReset(): boolean;
  closed(): boolean;
}

/** Collects what a client socket receives and whether it was reset. */
export function record(socket: Socket): SocketRecord {
  let text = '';
  let reset = false;
  let closed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => (reset = true));
  socket.on('close', () => (closed = true));
  return { text: () => text, wasReset: () => reset, closed: () => closed };
}

/** Bytes on loopback move within milliseconds: poll often, give up soon. */
export const until = (condition: () => boolean, timeoutMs = 2_000) =>
  waitFor('the proxied bytes', condition, { timeoutMs, intervalMs: 10 });

/** Lets time pass where the property is that nothing happens within it. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An echo server behind a proxy, and what to clean up afterwards. */
export async function proxiedEcho(
  cleanups: Array<() => unknown>,
  options: Omit<FaultProxyOptions, 'targetPort'> = {},
): Promise<{ echo: EchoServer; proxy: FaultProxy }> {
  const echo = await startEchoServer();
  cleanups.push(() => new Promise((resolve) => echo.server.close(resolve)));
  const proxy = await FaultProxy.listen({ ...options, targetPort: echo.port });
  cleanups.push(() => proxy.close());
  return { echo, proxy };
}

/** A connected client of `proxy`, destroyed at cleanup. */
export async function connectTo(proxy: FaultProxy, cleanups: Array<() => unknown>): Promise<{ client: Socket; seen: SocketRecord }> {
  const client = connect(proxy.port, '127.0.0.1');
  cleanups.push(() => client.destroy());
  const seen = record(client);
  await once(client, 'connect');
  return { client, seen };
}
