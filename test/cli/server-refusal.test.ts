import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { runCli } from './support/cli-process.js';

// A member that refuses any write over 1 KiB (etcd checks the size of what goes through Raft): a well-formed
// release of a longer key passes every check of the CLI and the provider, is sent, and is refused by the server.
const etcd = useEtcdCluster({ size: 1, extraArgs: ['--max-request-bytes=1024'] });

describe("a request over the etcd server's size limit", () => {
  it('is a failed operation, not a usage error: exit 1 with ELEASE_TOO_LARGE, at once', async () => {
    const key = 'k'.repeat(4096);
    const connection = ['--endpoints', etcd.cluster.endpoints().join(','), '--prefix', etcd.uniquePrefix()];

    // --owner goes through the provider, --force through the CLI's own store (--token: straight to the delete,
    // which a read of the absent key would otherwise skip): both report the refusal alike.
    for (const args of [['release', key, '--owner', 'A'], ['release', key, '--force', '--token', '5']]) {
      const started = performance.now();
      const result = await runCli([...args, ...connection, '--timeout', '20000']);
      expect(result.code, `${args.at(-1)}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toContain('ELEASE_TOO_LARGE');
      expect(result.stderr).toContain('--max-request-bytes');
      expect(result.stderr).not.toContain('--help');
      // Retried, it would run into the 20 s --timeout.
      expect(performance.now() - started).toBeLessThan(10_000);
    }
  });
});
