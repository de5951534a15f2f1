import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { CliProcess, cleanEnv, runCli } from './support/cli-process.js';

const etcd = useEtcdCluster();

/** Mastra's thread key shape: resourceId + NUL + threadId. */
const THREAD = 'user-1\u0000thread-1';
const OWNER = 'mastra-thread-owner:{"runId":"r-1","pid":4242}';

function connection(prefix: string): string[] {
  return ['--endpoints', etcd.cluster.endpoints().join(','), '--prefix', prefix];
}

function json(stdout: string): unknown {
  return JSON.parse(stdout);
}

describe('etcd-lease list', () => {
  it('--json prints every lease under the prefix with owner, fencing token and remaining TTL', async () => {
    const provider = etcd.provider();
    const first = await provider.acquireLease(THREAD, OWNER, 15_000);
    const second = await provider.acquireLease('plain', 'B', 15_000);

    const result = await runCli(['list', '--json', ...connection(provider.prefix)]);

    expect(result.code, result.stderr).toBe(0);
    const rows = json(result.stdout) as Array<{ key: string; owner: string; fencingToken: string; ttlRemainingMs: number }>;
    expect(rows.map((r) => Object.keys(r).sort())).toEqual([
      ['fencingToken', 'key', 'owner', 'ttlRemainingMs'],
      ['fencingToken', 'key', 'owner', 'ttlRemainingMs'],
    ]);
    const byKey = new Map(rows.map((r) => [r.key, r]));
    expect(byKey.get(THREAD)).toMatchObject({ owner: OWNER, fencingToken: first.fencingToken });
    expect(byKey.get('plain')).toMatchObject({ owner: 'B', fencingToken: second.fencingToken });
    for (const row of rows) {
      // Never more than ttl + the documented slack (bucket + whole-second rounding), and still alive.
      expect(row.ttlRemainingMs).toBeGreaterThan(0);
      expect(row.ttlRemainingMs).toBeLessThanOrEqual(17_000);
    }
  });

  it('text mode shows a NUL in a key as an escape, never as a raw byte', async () => {
    const provider = etcd.provider();
    await provider.acquireLease(THREAD, OWNER, 15_000);

    const result = await runCli(['list', ...connection(provider.prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('\u0000');
    expect(result.stdout).toContain('"user-1\\u0000thread-1"');
    expect(result.stdout).toMatch(/^KEY\s+FENCING TOKEN\s+TTL\s+OWNER$/m);
  });

  it('an empty prefix lists nothing: [] with --json', async () => {
    const result = await runCli(['list', '--json', ...connection(etcd.uniquePrefix())]);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result.stdout)).toEqual([]);
  });

  it('reads ETCD_ENDPOINTS when no --endpoints flag is given', async () => {
    const provider = etcd.provider();
    await provider.acquireLease('k', 'A', 15_000);
    const result = await runCli(['list', '--json', '--prefix', provider.prefix], cleanEnv({ ETCD_ENDPOINTS: etcd.cluster.endpoints().join(',') }));
    expect(result.code, result.stderr).toBe(0);
    expect(json(result.stdout)).toMatchObject([{ key: 'k', owner: 'A' }]);
  });
});

describe('etcd-lease get', () => {
  it('a key given JSON-quoted, as list prints it, finds the lease with a NUL in its key', async () => {
    const provider = etcd.provider();
    const acquired = await provider.acquireLease(THREAD, OWNER, 15_000);

    const result = await runCli(['get', JSON.stringify(THREAD), '--json', ...connection(provider.prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect(json(result.stdout)).toMatchObject({ key: THREAD, owner: OWNER, fencingToken: acquired.fencingToken });
  });

  it('a free key is not an error: null with --json, exit 0', async () => {
    const result = await runCli(['get', 'nobody-holds-this', '--json', ...connection(etcd.uniquePrefix())]);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result.stdout)).toBeNull();
  });
});

describe('etcd-lease release', () => {
  it('--owner with the holder frees the key', async () => {
    const provider = etcd.provider();
    await provider.acquireLease(THREAD, OWNER, 15_000);

    const result = await runCli(['release', JSON.stringify(THREAD), '--owner', OWNER, ...connection(provider.prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect(await provider.getLeaseOwner(THREAD)).toBeUndefined();
  });

  it('--owner with someone other than the holder leaves the lease alone and exits 1', async () => {
    const provider = etcd.provider();
    await provider.acquireLease('k', 'holder', 15_000);

    const result = await runCli(['release', 'k', '--owner', 'impostor', ...connection(provider.prefix)]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('held by "holder"');
    expect(await provider.getLeaseOwner('k')).toBe('holder');
  });

  it('--force deletes the key whoever holds it; the holder then finds it lost on renew', async () => {
    const provider = etcd.provider();
    await provider.acquireLease('stuck', 'gone-away', 15_000);

    const result = await runCli(['release', 'stuck', '--force', ...connection(provider.prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('was held by "gone-away"');
    expect(await provider.getLeaseOwner('stuck')).toBeUndefined();
    expect(await provider.renewLease('stuck', 'gone-away', 15_000)).toBe(false);
  });
});

describe('etcd-lease watch', () => {
  it('--json prints acquire, renew, transfer and free as they happen, and exits 0 on Ctrl-C', async () => {
    const provider = etcd.provider();
    const watch = new CliProcess(['watch', '--json', ...connection(provider.prefix)], cleanEnv());
    try {
      await watch.until('the watch to start', (p) => p.stderr.includes('watching'));
      await provider.acquireLease(THREAD, 'run-1', 15_000);
      await provider.renewLease(THREAD, 'run-1', 15_000);
      await provider.transferLease(THREAD, 'run-1', 'run-2', 15_000);
      await provider.releaseLease(THREAD, 'run-2');
      await watch.until('four events', (p) => p.stdout.trim().split('\n').filter(Boolean).length >= 4);

      watch.signal('SIGINT');
      const result = await watch.exited;

      expect(result.code, result.stderr).toBe(0);
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(events.map((e) => [e.event, e.key, e.owner, e.previousOwner])).toEqual([
        ['acquired', THREAD, 'run-1', null],
        ['renewed', THREAD, 'run-1', 'run-1'],
        ['transferred', THREAD, 'run-2', 'run-1'],
        ['freed', THREAD, null, 'run-2'],
      ]);
      expect(BigInt(events[2]!.fencingToken as string)).toBeGreaterThan(BigInt(events[1]!.fencingToken as string));
    } finally {
      watch.signal('SIGKILL');
      await watch.exited;
    }
  });
});

describe('exit codes and help', () => {
  it.each(['list', 'get', 'release', 'watch', 'demo'])('%s --help prints its usage and exits 0', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: etcd-lease ${command}`);
  });

  it('etcd-lease --help lists every command and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['list', 'get', 'release', 'watch', 'demo']) expect(result.stdout).toContain(`  ${command} `);
  });

  it.each([
    ['an unknown command', ['frobnicate']],
    ['no command', []],
    ['an unknown flag', ['list', '--bogus']],
    ['a missing KEY', ['get']],
    ['both --owner and --force', ['release', 'k', '--owner', 'o', '--force']],
    ['neither --owner nor --force', ['release', 'k']],
    ['a bad --timeout', ['list', '--timeout', 'soon']],
    ['--cert without --key', ['list', '--cert', '/tmp/c.pem']],
  ])('%s is a usage error: exit 2', async (_, args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
  });

  it('an unreachable cluster is an operational error: exit 1 within the timeout, with the error code and the cause', async () => {
    const started = performance.now();
    const result = await runCli(['list', '--endpoints', '127.0.0.1:1', '--timeout', '800']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ELEASE_UNAVAILABLE');
    expect(result.stderr).toContain('127.0.0.1:1 refused the connection (ECONNREFUSED)');
    expect(result.stderr).not.toMatch(/circuit breaker/i);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
