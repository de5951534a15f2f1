import { isLeaseProvider } from '@mastra/core/events';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EtcdLeaseProvider, EtcdUnavailableError, ProviderClosedError } from '../../src/index.js';
import { createLeaseProvider } from '../../src/provider.js';
import { OPERATIONS, type OperationSet } from '../../src/calls/operation-set.js';
import { put } from '../../src/operations/etcd-txn.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { leaseCalls, type LeaseCalls } from './lease-calls.js';
import { raceTransfers } from './transfer-race.js';
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

describe('racing transfers need the holder compared inside the transaction', () => {
  // The contract's race (lease-contract.ts) with a deliberately broken transfer: a put with no compare. Both racers
  // then report true — what the contract's "exactly one wins" check exists to catch.
  const BLIND_TRANSFER: OperationSet = {
    ...OPERATIONS,
    transfer: { txn: (key, _from, _revision, to, lease) => ({ compare: [], success: [put(key, to, lease)], failure: [] }), decode: OPERATIONS.transfer.decode },
  };

  it('negative control: with a blind put, both transfers of one race report true', async () => {
    const prefix = etcd.uniquePrefix();
    const broken = [0, 1].map(() => createLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix }, { operations: BLIND_TRANSFER }));
    try {
      const [holder, rival] = broken.map((p) => leaseCalls(p, false)) as [LeaseCalls, LeaseCalls];
      const reader = leaseCalls(etcd.provider({ prefix }), false);
      const race = await raceTransfers({ holder, rival, reader }, 'duel', 'A', ['B', 'C'], 5000);
      expect(race.answers).toEqual([true, true]);
    } finally {
      await Promise.all(broken.map((p) => p.close()));
    }
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
