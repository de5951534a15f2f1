import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';

/** An etcd3 client without etcd3's retries and circuit breakers, which would mask injected faults. */
export function plainClient(hosts: string | string[]): Etcd3 {
  return new Etcd3({ hosts, faultHandling: { host: () => noop, global: noop } });
}

/** Call options: a gRPC deadline `ms` from now. */
export const within = (ms: number) => ({ deadline: Date.now() + ms });

/**
 * Plain clients for one test, closed by `closeAll` (call it in afterEach): a test that fails half-way must not
 * leave connections open to the next.
 */
export function plainClients(): { clientFor(hosts: string | string[]): Etcd3; closeAll(): void } {
  const clients: Etcd3[] = [];
  return {
    clientFor(hosts) {
      const client = plainClient(hosts);
      clients.push(client);
      return client;
    },
    closeAll() {
      for (const client of clients.splice(0)) client.close();
    },
  };
}
