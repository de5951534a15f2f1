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
    expect(result.stdout).toMatch(/^KEY\s+FENCING TOKEN\s+TTL\s+METADATA\s+OWNER$/m);
  });

  it('metadata is shown where a lease has it: a JSON field only then, escaped like keys in text', async () => {
    const provider = etcd.provider();
    await provider.acquireLease(THREAD, OWNER, 15_000, 'run\u00007');
    await provider.acquireLease('plain', 'B', 15_000);

    const json = await runCli(['list', '--json', ...connection(provider.prefix)]);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(rows.find((r) => r.key === THREAD)).toMatchObject({ owner: OWNER, metadata: 'run\u00007' });
    expect(rows.find((r) => r.key === 'plain')).not.toHaveProperty('metadata');

    const text = await runCli(['list', ...connection(provider.prefix)]);
    expect(text.stdout).not.toContain('\u0000');
    expect(text.stdout).toContain('"run\\u00007"');
  });

  it('--ndjson prints one object per line; --owner keeps one owner; --limit stops after N; --count counts', async () => {
    const provider = etcd.provider();
    for (const key of ['a', 'b', 'c']) await provider.acquireLease(key, 'A', 15_000);
    await provider.acquireLease('d', 'B', 15_000);
    const list = (...args: string[]) => runCli(['list', ...args, ...connection(provider.prefix)]);

    const lines = (await list('--ndjson')).stdout.trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { key: string }).key)).toEqual(['a', 'b', 'c', 'd']);
    expect(JSON.parse((await list('--json', '--owner', 'B')).stdout)).toMatchObject([{ key: 'd', owner: 'B' }]);
    expect((JSON.parse((await list('--json', '--limit', '2')).stdout) as unknown[]).length).toBe(2);
    expect((await list('--count')).stdout.trim()).toBe('4');
    expect((await list('--count', '--owner', 'A')).stdout.trim()).toBe('3');
    expect((await list('--count', '--owner', 'A', '--limit', '2')).stdout.trim()).toBe('2');
  });

  it('stops reading when the reader of its output goes away (| head), and exits 0', async () => {
    const provider = etcd.provider();
    for (let i = 0; i < 30; i++) await provider.acquireLease(`k${i}`, 'A', 15_000);
    const cli = new CliProcess(['list', '--ndjson', '--page-size', '1', ...connection(provider.prefix)], cleanEnv(), { closeStdoutAfterBytes: 1 });
    const result = await cli.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
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

  it('shows the run metadata a lease was taken with, in text and JSON; none when taken without', async () => {
    const provider = etcd.provider();
    await provider.acquireLease(THREAD, OWNER, 15_000, 'run-42');
    await provider.acquireLease('plain', 'B', 15_000);

    const text = await runCli(['get', JSON.stringify(THREAD), ...connection(provider.prefix)]);
    expect(text.stdout).toMatch(/^owner:\s+"mastra-thread-owner/m);
    expect(text.stdout).toMatch(/^metadata:\s+"run-42"$/m);
    expect(json((await runCli(['get', JSON.stringify(THREAD), '--json', ...connection(provider.prefix)])).stdout)).toMatchObject({ owner: OWNER, metadata: 'run-42' });

    expect((await runCli(['get', 'plain', ...connection(provider.prefix)])).stdout).not.toContain('metadata');
    expect(json((await runCli(['get', 'plain', '--json', ...connection(provider.prefix)])).stdout)).not.toHaveProperty('metadata');
  });

  it('a key typed with a backslash escape instead of JSON-quoted is free, exit 0, with a note on stderr naming the held key', async () => {
    const provider = etcd.provider();
    await provider.acquireLease(THREAD, OWNER, 15_000);
    const typed = 'user-1\\u0000thread-1'; // what a shell passes for 'user-1\u0000thread-1'

    const text = await runCli(['get', typed, ...connection(provider.prefix)]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe('"user-1\\\\u0000thread-1": free\n');
    expect(text.stderr).toContain('A lease is held at "user-1\\u0000thread-1"');
    expect(text.stderr).toContain(`etcd-lease get '"user-1\\u0000thread-1"'`);

    const free = await runCli(['get', 'user-9\\u0000thread-9', '--json', ...connection(provider.prefix)]);
    expect(free.code, free.stderr).toBe(0);
    expect(json(free.stdout)).toBeNull();
    expect(free.stderr).toContain('"user-9\\u0000thread-9" is free too');
  });

  it('a free key is not an error: null with --json, exit 0', async () => {
    const result = await runCli(['get', 'nobody-holds-this', '--json', ...connection(etcd.uniquePrefix())]);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result.stdout)).toBeNull();
    expect(result.stderr).toBe('');
  });
});

describe('etcd-lease release', () => {
  it('a key typed with a backslash escape instead of JSON-quoted: "already free", exit 0, and a note that the lease meant is still held', async () => {
    const provider = etcd.provider();
    await provider.acquireLease(THREAD, OWNER, 15_000);
    const typed = 'user-1\\u0000thread-1'; // what a shell passes for 'user-1\u0000thread-1'

    for (const how of [['--owner', OWNER], ['--force']]) {
      const result = await runCli(['release', typed, ...how, ...connection(provider.prefix)]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('"user-1\\\\u0000thread-1": already free\n');
      expect(result.stderr).toContain('A lease is held at "user-1\\u0000thread-1"');
      expect(result.stderr).toContain(`etcd-lease release '"user-1\\u0000thread-1"' with the same flags`);
    }
    expect(await provider.getLeaseOwner(THREAD)).toBe(OWNER);

    // Given as the note says, it is released.
    const quoted = await runCli(['release', JSON.stringify(THREAD), '--owner', OWNER, ...connection(provider.prefix)]);
    expect(quoted.code, quoted.stderr).toBe(0);
    expect(quoted.stderr).toBe('');
    expect(await provider.getLeaseOwner(THREAD)).toBeUndefined();
  });

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

  it('--metadata must match exactly: other or missing metadata leaves the lease alone, the same metadata releases it', async () => {
    const provider = etcd.provider();
    await provider.acquireLease('k', 'A', 15_000, 'run-1');
    const release = (...args: string[]) => runCli(['release', 'k', '--owner', 'A', ...args, ...connection(provider.prefix)]);

    const wrong = await release('--metadata', 'run-2');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('"A" holds it with run metadata "run-1", which must match exactly, and --metadata "run-2" was given');
    const missing = await release();
    expect(missing.code).toBe(1);
    // The same owner, so not "held by A, not A": what differs is the metadata, and the message says how to match it.
    expect(missing.stderr).toContain('"A" holds it with run metadata "run-1", which must match exactly, and no --metadata was given; add --metadata "run-1"');
    expect(missing.stderr).not.toMatch(/not "A"/);
    expect(await provider.getLeaseRecord('k')).toEqual({ owner: 'A', metadata: 'run-1' });

    const right = await release('--metadata', 'run-1');
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout).toContain('released by "A" (metadata "run-1")');
    expect(await provider.getLeaseRecord('k')).toBeUndefined();
  });

  it("--metadata '' is a value: it does not release the owner's lease taken without metadata", async () => {
    const provider = etcd.provider();
    await provider.acquireLease('plain', 'A', 15_000);
    const withMetadata = await runCli(['release', 'plain', '--owner', 'A', '--metadata', '', ...connection(provider.prefix)]);
    expect(withMetadata.code).toBe(1);
    expect(withMetadata.stderr).toContain('"A" holds it without run metadata, and --metadata "" was given; run it again without --metadata');
    expect(await provider.getLeaseOwner('plain')).toBe('A');
  });

  it('--force deletes the key whoever holds it, after showing the holder; the holder then finds it lost on renew', async () => {
    const provider = etcd.provider();
    const acquired = await provider.acquireLease('stuck', 'gone-away', 15_000, 'run-9');

    const result = await runCli(['release', 'stuck', '--force', ...connection(provider.prefix)]);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`held by "gone-away" (metadata "run-9"), fencing token ${acquired.fencingToken}`);
    expect(result.stdout).toContain(`deleted (fencing token ${acquired.fencingToken})`);
    expect(await provider.getLeaseOwner('stuck')).toBeUndefined();
    expect(await provider.renewLease('stuck', 'gone-away', 15_000, 'run-9')).toBe(false);
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

describe('etcd-lease watch with run metadata', () => {
  it('--initial prints the current leases as held, then changes; a change of metadata alone is a transfer', async () => {
    const provider = etcd.provider();
    await provider.acquireLease('before', 'A', 15_000, 'run-0');
    const watch = new CliProcess(['watch', '--json', '--initial', ...connection(provider.prefix)], cleanEnv());
    try {
      await watch.until('the watch to start', (p) => p.stderr.includes('watching'));
      expect(watch.stderr).toContain('1 lease(s) at revision');
      await provider.acquireLease(THREAD, 'A', 15_000, 'run-1');
      await provider.transferLease(THREAD, 'A', 'A', 15_000, 'run-1', 'run-2');
      await provider.transferLease(THREAD, 'A', 'B', 15_000, 'run-2');
      await watch.until('four events', (p) => p.stdout.trim().split('\n').filter(Boolean).length >= 4);
      watch.signal('SIGINT');
      const result = await watch.exited;

      expect(result.code, result.stderr).toBe(0);
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(events.map(({ fencingToken: _t, revision: _r, ...rest }) => rest)).toEqual([
        { event: 'held', key: 'before', owner: 'A', metadata: 'run-0', previousOwner: null },
        { event: 'acquired', key: THREAD, owner: 'A', metadata: 'run-1', previousOwner: null },
        { event: 'transferred', key: THREAD, owner: 'A', metadata: 'run-2', previousOwner: 'A', previousMetadata: 'run-1' },
        { event: 'transferred', key: THREAD, owner: 'B', previousOwner: 'A', previousMetadata: 'run-2' },
      ]);
    } finally {
      watch.signal('SIGKILL');
      await watch.exited;
    }
  });
});

describe('exit codes and help', () => {
  it.each(['list', 'stats', 'get', 'release', 'watch', 'demo'])('%s --help prints its usage and exits 0', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: etcd-lease ${command}`);
  });

  it('etcd-lease --help lists every command and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['list', 'stats', 'get', 'release', 'watch', 'demo']) expect(result.stdout).toContain(`  ${command} `);
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
    ['both --json and --ndjson', ['list', '--json', '--ndjson']],
    ['--limit 0', ['list', '--limit', '0']],
    ['--page-size 0', ['stats', '--page-size', '0']],
    ['--metadata with --force', ['release', 'k', '--force', '--metadata', 'm']],
    ['--token without --force', ['release', 'k', '--owner', 'o', '--token', '5']],
    ['a --token that is no revision', ['release', 'k', '--force', '--token', 'abc']],
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
