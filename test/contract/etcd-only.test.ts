import { isLeaseProvider } from '@mastra/core/events';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  EtcdLeaseProvider,
  EtcdUnavailableError,
  LeaseArgumentRangeError,
  LeaseArgumentTypeError,
  ProviderClosedError,
} from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { elapse } from '../support/wait.js';

// What only a distributed backend can show: several clients, prefix isolation, the server's clock,
// an unreachable cluster. The shared contract runs in lease-contract.ts.
const etcd = useEtcdCluster();

/** A port with a listener that accepts and never answers: the "hung cluster" case. */
async function silentPort(): Promise<{ port: number; close: () => void }> {
  const server = createServer(() => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => server.close() };
}

describe('EtcdLeaseProvider as a Mastra LeaseProvider', () => {
  it("is detected by Mastra's isLeaseProvider", () => {
    expect(isLeaseProvider(new EtcdLeaseProvider({ hosts: '127.0.0.1:1' }))).toBe(true);
  });
});

describe('several clients on one cluster', () => {
  it('independent providers elect exactly one owner and all agree on it', async () => {
    const prefix = etcd.uniquePrefix();
    const clients = Array.from({ length: 4 }, () => etcd.provider({ prefix }));
    const results = await Promise.all(clients.flatMap((c, i) => Array.from({ length: 5 }, (_, j) => c.acquireLease('shared', `c${i}-${j}`, 5000))));
    const winners = results.filter((r) => r.acquired);
    expect(winners).toHaveLength(1);
    for (const c of clients) expect(await c.getLeaseOwner('shared')).toBe(winners[0]!.owner);
  });

  it('every key is written under the prefix, as the prefix bytes followed by the key bytes', async () => {
    const prefix = etcd.uniquePrefix();
    const p = etcd.provider({ prefix });
    await p.acquireLease('a\u0000b', 'A', 5000);
    const raw = etcd.rawClient();
    const all = await raw.getAll().prefix(prefix).keys();
    expect(all).toEqual([`${prefix}a\u0000b`]);
    const other = etcd.provider({ prefix: etcd.uniquePrefix() });
    expect(await other.getLeaseOwner('a\u0000b')).toBeUndefined();
    expect(await other.acquireLease('a\u0000b', 'B', 5000)).toMatchObject({ acquired: true });
  });

  it('a lease below etcd\'s minimum TTL still lives at least ttlMs', async () => {
    const p = etcd.provider();
    const sentAt = performance.now();
    await p.acquireLease('short', 'A', 300);
    await elapse(Math.max(0, 300 - (performance.now() - sentAt)));
    expect(await p.getLeaseOwner('short')).toBe('A');
  });
});

describe('distributed retry semantics', () => {
  it('a transfer repeated after it committed reports true (what a retried attempt sees)', async () => {
    const p = etcd.provider();
    await p.acquireLease('k', 'A', 5000);
    expect(await p.transferLease('k', 'A', 'B', 5000)).toBe(true);
    expect(await p.transferLease('k', 'A', 'B', 5000)).toBe(true);
    expect(await p.getLeaseOwner('k')).toBe('B');
  });

  it('fencing tokens strictly increase from owner to owner', async () => {
    const p = etcd.provider();
    const a = await p.acquireLease('f', 'A', 5000);
    await p.releaseLease('f', 'A');
    const b = await p.acquireLease('f', 'B', 5000);
    expect(BigInt(b.fencingToken!)).toBeGreaterThan(BigInt(a.fencingToken!));
    const info = await p.getLease('f');
    expect(info).toMatchObject({ owner: 'B' });
    expect(BigInt(info!.fencingToken)).toBeGreaterThanOrEqual(BigInt(b.fencingToken!));
    expect(info!.ttlRemainingMs).toBeGreaterThan(0);
  });

  it('serializable reads see committed owners', async () => {
    const p = etcd.provider({ readConsistency: 'serializable' });
    await p.acquireLease('s', 'A', 5000);
    // a follower may lag by a moment: serializable reads are allowed to be stale, not wrong
    for (;;) {
      const owner = await p.getLeaseOwner('s');
      if (owner === 'A') break;
      expect(owner).toBeUndefined();
    }
  });
});

describe('bad input', () => {
  // Pointed at a port nobody answers on: had anything been sent, the call would end in
  // EtcdUnavailableError after the deadline instead of the immediate argument error.
  const offline = () => new EtcdLeaseProvider({ hosts: '127.0.0.1:1', deadlineMs: 60_000 });

  type ErrorClass = new (parameter: string, message: string) => Error;
  const cases: Array<[string, (p: EtcdLeaseProvider) => Promise<unknown>, string, ErrorClass]> = [
    ['empty key', (p) => p.acquireLease('', 'A', 1000), 'key', LeaseArgumentTypeError],
    ['non-string key', (p) => p.getLeaseOwner(5 as never), 'key', LeaseArgumentTypeError],
    ['empty owner', (p) => p.renewLease('k', '', 1000), 'owner', LeaseArgumentTypeError],
    ['non-string owner', (p) => p.releaseLease('k', null as never), 'owner', LeaseArgumentTypeError],
    ['empty fromOwner', (p) => p.transferLease('k', '', 'B', 1000), 'fromOwner', LeaseArgumentTypeError],
    ['empty toOwner', (p) => p.transferLease('k', 'A', '', 1000), 'toOwner', LeaseArgumentTypeError],
    ['zero ttl', (p) => p.acquireLease('k', 'A', 0), 'ttlMs', LeaseArgumentRangeError],
    ['negative ttl', (p) => p.renewLease('k', 'A', -5), 'ttlMs', LeaseArgumentRangeError],
    ['NaN ttl', (p) => p.transferLease('k', 'A', 'B', NaN), 'ttlMs', LeaseArgumentRangeError],
    ['Infinity ttl', (p) => p.acquireLease('k', 'A', Infinity), 'ttlMs', LeaseArgumentRangeError],
    ['string ttl', (p) => p.acquireLease('k', 'A', '1000' as never), 'ttlMs', LeaseArgumentTypeError],
    ['oversized key', (p) => p.acquireLease('k'.repeat(2_000_000), 'A', 1000), 'key', LeaseArgumentRangeError],
    ['lone surrogate', (p) => p.acquireLease('k\uD800', 'A', 1000), 'key', LeaseArgumentTypeError],
  ];

  it.each(cases)('%s is rejected at once with an error naming the parameter, and nothing is sent', async (_, call, parameter, type) => {
    const p = offline();
    const startedAt = performance.now();
    const error = await call(p).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message.startsWith(`${parameter}: `)).toBe(true);
    expect((error as { code: string }).code).toBe('ELEASE_INVALID_ARGUMENT');
    expect(performance.now() - startedAt).toBeLessThan(500);
    await p.close();
  });

  it('bad input against a live cluster stores nothing', async () => {
    const prefix = etcd.uniquePrefix();
    const p = etcd.provider({ prefix });
    for (const [, call] of cases) await call(p).catch(() => undefined);
    expect(await etcd.rawClient().getAll().prefix(prefix).keys()).toEqual([]);
  });
});

describe('unreachable cluster', () => {
  it('a hung endpoint rejects within the deadline with EtcdUnavailableError, never a success', async () => {
    const silent = await silentPort();
    const p = new EtcdLeaseProvider({ hosts: `127.0.0.1:${silent.port}`, deadlineMs: 1500, attemptTimeoutMs: 400 });
    try {
      for (const call of [
        () => p.acquireLease('k', 'A', 5000),
        () => p.renewLease('k', 'A', 5000),
        () => p.transferLease('k', 'A', 'B', 5000),
        () => p.getLeaseOwner('k'),
      ]) {
        const startedAt = performance.now();
        const error = await call().then((v) => ({ resolved: v }), (e: unknown) => e);
        expect(error).toBeInstanceOf(EtcdUnavailableError);
        expect((error as EtcdUnavailableError).code).toBe('ELEASE_UNAVAILABLE');
        expect(performance.now() - startedAt).toBeLessThan(1500 + 1000);
      }
    } finally {
      await p.close();
      silent.close();
    }
  });

  it('a refused endpoint rejects within the deadline too', async () => {
    const p = new EtcdLeaseProvider({ hosts: '127.0.0.1:1', deadlineMs: 1000 });
    await expect(p.acquireLease('k', 'A', 5000)).rejects.toBeInstanceOf(EtcdUnavailableError);
    await p.close();
  });

  it('an aborted call rejects with the abort, at once', async () => {
    const silent = await silentPort();
    const p = new EtcdLeaseProvider({ hosts: `127.0.0.1:${silent.port}`, deadlineMs: 30_000 });
    const ac = new AbortController();
    const pending = p.acquireLease('k', 'A', 5000, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'ELEASE_ABORTED' });
    await p.close();
    silent.close();
  });
});

describe('lifecycle', () => {
  it('calls after close() reject with ProviderClosedError', async () => {
    const p = etcd.provider();
    await p.close();
    await expect(p.acquireLease('k', 'A', 1000)).rejects.toBeInstanceOf(ProviderClosedError);
  });

  it('a caller-owned client is left open by close()', async () => {
    const client = etcd.rawClient();
    const p = new EtcdLeaseProvider({ client, prefix: etcd.uniquePrefix() });
    await p.acquireLease('k', 'A', 5000);
    await p.close();
    await expect(client.get('anything').string()).resolves.toBeNull();
  });

  it('close() leaves no timers or sockets behind: a process that used the provider exits on its own', async () => {
    const script = `
      import { EtcdLeaseProvider } from './src/index.ts';
      const p = new EtcdLeaseProvider({ hosts: ${JSON.stringify(etcd.cluster.endpoints())}, prefix: 'exit-test/' });
      await p.acquireLease('k', 'A', 15000);
      await p.renewLease('k', 'A', 15000);
      await p.close();
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('process did not exit within 15 s after close()'));
      }, 15_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
  });
});
