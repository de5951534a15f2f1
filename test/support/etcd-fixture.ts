import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll } from 'vitest';
import { EtcdLeaseProvider } from '../../src/index.js';
import type { EtcdLeaseProviderOptions } from '../../src/config/options.js';
import { startCluster, type ClusterOptions, type TestCluster } from '../harness/cluster.js';

/**
 * One real etcd cluster per test file, started before its tests and stopped after them (also when
 * they fail). Providers made through the fixture get a prefix of their own and are closed at the end.
 */
export function useEtcdCluster(options: ClusterOptions = {}) {
  let cluster: TestCluster | undefined;
  const closers: Array<() => Promise<void> | void> = [];
  let prefixes = 0;

  beforeAll(async () => {
    cluster = await startCluster(options);
  });
  afterAll(async () => {
    await Promise.allSettled(closers.splice(0).map((close) => close()));
    await cluster?.stop();
  });

  const self = {
    get cluster(): TestCluster {
      if (!cluster) throw new Error('cluster not started yet: use it inside a test or hook');
      return cluster;
    },
    uniquePrefix(): string {
      return `test/${process.pid}/${++prefixes}/`;
    },
    provider(extra: Partial<EtcdLeaseProviderOptions> = {}): EtcdLeaseProvider {
      const provider = new EtcdLeaseProvider({ hosts: self.cluster.endpoints(), prefix: self.uniquePrefix(), ...extra });
      closers.push(() => provider.close());
      return provider;
    },
    /** A plain etcd3 client for looking at what the provider stored. */
    rawClient(): Etcd3 {
      const client = new Etcd3({ hosts: self.cluster.endpoints() });
      closers.push(() => client.close());
      return client;
    },
  };
  return self;
}
