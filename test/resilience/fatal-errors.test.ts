import { beforeAll, describe, expect, it } from 'vitest';
import { EtcdAuthenticationError, EtcdLeaseProvider, EtcdPermissionError } from '../../src/index.js';
import { enableAppAuth } from '../support/app-user.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

// Errors that retrying cannot fix fail fast with a typed error and are not retried:
// with a 30 s deadline, each must come back within a few seconds.
const etcd = useEtcdCluster();
const DEADLINE_MS = 30_000;

beforeAll(async () => {
  await enableAppAuth(etcd.cluster.endpoints());
});

async function timed<T>(call: () => Promise<T>): Promise<{ error: unknown; ms: number }> {
  const startedAt = performance.now();
  const error = await call().then(() => undefined, (e: unknown) => e);
  return { error, ms: performance.now() - startedAt };
}

describe('errors retrying cannot fix', () => {
  it('a wrong password fails fast with EtcdAuthenticationError', async () => {
    const p = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix: 'allowed/', auth: { username: 'app', password: 'wrong' }, deadlineMs: DEADLINE_MS });
    try {
      const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
      expect(error).toBeInstanceOf(EtcdAuthenticationError);
      expect((error as EtcdAuthenticationError).code).toBe('ELEASE_AUTH');
      expect((error as Error).message).not.toContain('wrong');
      expect(ms).toBeLessThan(5000);
    } finally {
      await p.close();
    }
  });

  it('a prefix outside the role fails fast with EtcdPermissionError', async () => {
    const p = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix: 'forbidden/', auth: { username: 'app', password: 'app-secret' }, deadlineMs: DEADLINE_MS });
    try {
      const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
      expect(error).toBeInstanceOf(EtcdPermissionError);
      expect((error as Error).message).toContain('forbidden/');
      expect(ms).toBeLessThan(5000);
    } finally {
      await p.close();
    }
  });

  it('the right user on its own prefix works', async () => {
    const p = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix: 'allowed/', auth: { username: 'app', password: 'app-secret' } });
    try {
      expect(await p.acquireLease('k', 'A', 5000)).toMatchObject({ acquired: true });
      expect(await p.getLeaseOwner('k')).toBe('A');
    } finally {
      await p.close();
    }
  });
});
