import { createServer, type Server } from 'node:net';

/**
 * `count` distinct TCP ports on 127.0.0.1 that were free a moment ago. All listeners stay open
 * until every port is known, so the kernel cannot hand one out twice. Only for ports that must be
 * known before a child starts (etcd's own listeners); a race with another process remains possible.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      servers.push(
        await new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
      );
    }
    return servers.map((s) => {
      const address = s.address();
      if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
