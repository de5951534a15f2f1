import { createServer, type Server } from 'node:net';

/**
 * Free TCP ports on 127.0.0.1 for servers we start as child processes (etcd, redis-server), which
 * must be told their port before they bind it. Every listener stays open until all ports are read,
 * so the kernel cannot hand one port out twice; another process can still take one before the child
 * binds it, which the launchers surface as a start failure.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listen());
    return servers.map((s) => {
      const address = s.address();
      if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
