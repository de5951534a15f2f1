import { createServer, type Server } from 'node:net';

/**
 * Free TCP ports on 127.0.0.1, chosen at run time so that parallel test runs (and other
 * engineers' runs on the same machine) do not collide on fixed port numbers.
 *
 * All listeners are held open until every port is read: closing one before opening the
 * next would let the kernel hand the same port out twice.
 * The port is free when this returns, not reserved: a process that binds it later can lose
 * a race with someone else. Ask for every port a cluster needs in one call, so that they are
 * at least distinct from each other.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let n = 0; n < count; n++) {
      servers.push(await listenOnAnyPort());
    }
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

function listenOnAnyPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error(`expected a TCP address, got ${String(address)}`);
  }
  return address.port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
