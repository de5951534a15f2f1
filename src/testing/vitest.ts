import { startEtcdCluster, type EtcdTestCluster, type StartEtcdClusterOptions } from './cluster.js';

/** The two hooks of vitest, jest or mocha (`before`/`after`): this package depends on none of them. */
export interface SuiteHooks {
  beforeAll(fn: () => Promise<void>, timeoutMs?: number): void;
  afterAll(fn: () => Promise<void>, timeoutMs?: number): void;
}

export interface UseEtcdClusterOptions extends StartEtcdClusterOptions {
  /** Timeout of the start and stop hooks: a first container start may pull an image. @default 120 000 */
  hookTimeoutMs?: number;
}

/** The cluster of a test file: `cluster` once `beforeAll` ran. */
export interface EtcdClusterFixture {
  readonly cluster: EtcdTestCluster;
}

/**
 * One cluster per test file: started in `beforeAll`, stopped in `afterAll` — also when tests fail — and by the
 * cluster's exit hook when the run is interrupted.
 *
 * ```ts
 * import { beforeAll, afterAll } from 'vitest';
 * const etcd = useEtcdCluster({ beforeAll, afterAll }, { members: 3 });
 * it('…', async () => { new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints() }); … });
 * ```
 */
export function useEtcdCluster(hooks: SuiteHooks, options: UseEtcdClusterOptions = {}): EtcdClusterFixture {
  if (typeof hooks?.beforeAll !== 'function' || typeof hooks?.afterAll !== 'function') {
    throw new TypeError('hooks must be { beforeAll, afterAll } of your test runner (import them from vitest)');
  }
  const { hookTimeoutMs = 120_000, ...clusterOptions } = options;
  let cluster: EtcdTestCluster | undefined;
  hooks.beforeAll(async () => {
    cluster = await startEtcdCluster(clusterOptions);
  }, hookTimeoutMs);
  hooks.afterAll(async () => {
    await cluster?.stop();
  }, hookTimeoutMs);
  return {
    get cluster(): EtcdTestCluster {
      if (cluster === undefined) throw new Error('the etcd cluster is not started yet: use it inside a test or a hook after beforeAll');
      return cluster;
    },
  };
}
