import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { runCli } from './support/cli-process.js';

// A member that accepts values larger than gRPC's default 4 MiB receive limit, as a misconfigured or shared cluster
// may. The CLI's client accepts what etcd sends, so such a value is read like any other.
const etcd = useEtcdCluster({ size: 1, extraArgs: ['--max-request-bytes=6291456'] });

function connection(prefix: string): string[] {
  return ['--endpoints', etcd.cluster.endpoints().join(','), '--prefix', prefix, '--timeout', '20000'];
}

describe("a value over gRPC's default response size limit", () => {
  it('get, list and stats read it like any other value: exit 0, never ELEASE_TOO_LARGE nor "unavailable"', async () => {
    const prefix = etcd.uniquePrefix();
    const raw = etcd.rawClient();
    await raw.put(`${prefix}small`).value('owner').exec();
    await raw.put(`${prefix}huge`).value(Buffer.alloc(5 * 1024 * 1024, 0x61)).exec();

    for (const args of [['get', 'huge'], ['list', '--json'], ['stats']]) {
      const result = await runCli([...args, ...connection(prefix)]);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(0);
      expect(result.stderr).not.toContain('ELEASE_TOO_LARGE');
      expect(result.stderr).not.toContain('ELEASE_UNAVAILABLE');
    }
    const listed = JSON.parse((await runCli(['list', '--json', ...connection(prefix)])).stdout) as Array<{ key: string }>;
    expect(listed.map((r) => r.key)).toEqual(['huge', 'small']);
  });

  it('a listing whose pages would pass gRPC’s default limit prints every lease', async () => {
    const prefix = etcd.uniquePrefix();
    const raw = etcd.rawClient();
    const keys = Array.from({ length: 10 }, (_, i) => `big-${i}`);
    for (const key of keys) await raw.put(`${prefix}${key}`).value(Buffer.alloc(1024 * 1024, 0x62)).exec();

    const result = await runCli(['list', '--json', ...connection(prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ key: string }>).map((r) => r.key)).toEqual(keys);
  });
});
