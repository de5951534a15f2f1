import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { runCli } from './support/cli-process.js';

// A member that accepts values larger than gRPC's 4 MiB receive limit, as a misconfigured or shared cluster may:
// reading such a value can never succeed, and must say so at once instead of retrying and blaming availability.
const etcd = useEtcdCluster({ size: 1, extraArgs: ['--max-request-bytes=6291456'] });

function connection(prefix: string): string[] {
  return ['--endpoints', etcd.cluster.endpoints().join(','), '--prefix', prefix, '--timeout', '20000'];
}

describe('a value over the response size limit', () => {
  it('get, list and stats fail at once with ELEASE_TOO_LARGE naming the size and the limit, exit 1, never "unavailable"', async () => {
    const prefix = etcd.uniquePrefix();
    const raw = etcd.rawClient();
    await raw.put(`${prefix}small`).value('owner').exec();
    await raw.put(`${prefix}huge`).value(Buffer.alloc(5 * 1024 * 1024, 0x61)).exec();

    for (const args of [['get', 'huge'], ['list', '--json'], ['stats']]) {
      const started = performance.now();
      const result = await runCli([...args, ...connection(prefix)]);
      const elapsedMs = performance.now() - started;

      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toMatch(/ELEASE_TOO_LARGE: \w+: a message of 52\d{5} bytes is over its receiver's gRPC limit of 4194304 bytes/);
      expect(result.stderr).toContain('--page-size');
      expect(result.stderr).not.toContain('ELEASE_UNAVAILABLE');
      expect(result.stderr).not.toContain('Is etcd running');
      // The --timeout is 20 s: an error retried until its deadline would take that long.
      expect(elapsedMs, args[0]).toBeLessThan(10_000);
    }
  });

  it('a listing whose pages would pass the limit shrinks them and prints every lease', async () => {
    const prefix = etcd.uniquePrefix();
    const raw = etcd.rawClient();
    const keys = Array.from({ length: 10 }, (_, i) => `big-${i}`);
    for (const key of keys) await raw.put(`${prefix}${key}`).value(Buffer.alloc(1024 * 1024, 0x62)).exec();

    const result = await runCli(['list', '--json', ...connection(prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ key: string }>).map((r) => r.key)).toEqual(keys);
  });
});
