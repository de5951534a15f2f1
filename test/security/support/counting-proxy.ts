import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A plain TCP forwarder on 127.0.0.1 that counts the connections clients open through it (the
 * measure of a retry storm) and the bytes they send towards the server (the proof that a call sent
 * nothing). TLS passes through untouched.
 */
export class CountingProxy {
  connections = 0;
  /** Client-to-server bytes forwarded so far, over every connection. */
  bytesToServer = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async forward(targetPort: number): Promise<CountingProxy> {
    const server = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    const proxy = new CountingProxy(server, port);
    server.on('connection', (client) => {
      proxy.connections++;
      const upstream = connect({ host: '127.0.0.1', port: targetPort });
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => (proxy.bytesToServer += chunk.length));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    return proxy;
  }

  /** The endpoint to give a client, with the scheme of the endpoint behind it. */
  endpoint(scheme: 'http' | 'https'): string {
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Port of an endpoint URL such as `https://127.0.0.1:1234`. */
export function portOf(endpoint: string): number {
  return Number(new URL(endpoint).port);
}
