import { describe, expect, it } from 'vitest';
import { LeaseAbortedError, LeaseWaitTimeoutError, ProviderClosedError, type LeaseEvent } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

const etcd = useEtcdCluster();

/** A provider whose events are kept, so tests can wait on "B has lost an attempt" instead of sleeping. */
function observedProvider(prefix: string) {
  const events: LeaseEvent[] = [];
  const provider = etcd.provider({ prefix, onEvent: (e) => events.push(e) });
  const count = (type: LeaseEvent['type'], owner: string) => events.filter((e) => e.type === type && 'owner' in e && e.owner === owner).length;
  return { provider, events, count };
}

// With a 30 s TTL the safety-net re-check is 4–6 s away: a wake-up within a second comes from the watch.
const LONG_TTL = 30_000;

describe('waitForLease on a real cluster', () => {
  it('a free key is acquired at once, with a fencing token', async () => {
    const p = etcd.provider();
    const won = await p.waitForLease('free', 'A', 5000, { timeoutMs: 5000 });
    expect(won).toEqual({ acquired: true, owner: 'A', fencingToken: expect.stringMatching(/^\d+$/) });
    expect((await p.getLease('free'))?.fencingToken).toBe(won.fencingToken);
  });

  it('a waiter wakes within a second of a release', async () => {
    const prefix = etcd.uniquePrefix();
    const holder = etcd.provider({ prefix });
    const b = observedProvider(prefix);
    await holder.acquireLease('k', 'A', LONG_TTL);
    const waiting = b.provider.waitForLease('k', 'B', LONG_TTL, { timeoutMs: 20_000 });
    // Two lost attempts: the first, and the re-check once the watch is connected.
    await waitFor('B to be waiting on its watch', () => (b.count('contended', 'B') >= 2 ? true : undefined), { timeoutMs: 5000 });
    await holder.releaseLease('k', 'A');
    const releasedAt = performance.now();
    const won = await waiting;
    expect(performance.now() - releasedAt).toBeLessThan(1000);
    expect(won.owner).toBe('B');
    expect((await holder.getLease('k'))?.owner).toBe('B');
  });

  it("a waiter is woken by the holder's expiry, not by polling", async () => {
    const prefix = etcd.uniquePrefix();
    const holder = etcd.provider({ prefix });
    const b = observedProvider(prefix);
    const raw = etcd.rawClient();
    const deletes: number[] = [];
    const watcher = await raw.watch().key(`${prefix}k`).create();
    watcher.on('delete', () => deletes.push(performance.now()));
    try {
      await holder.acquireLease('k', 'A', 2000); // never renewed
      const won = await b.provider.waitForLease('k', 'B', LONG_TTL, { timeoutMs: 20_000 });
      const wonAt = performance.now();
      expect(won.owner).toBe('B');
      expect(deletes).toHaveLength(1);
      expect(wonAt - deletes[0]!).toBeLessThan(1000);
    } finally {
      await watcher.cancel();
    }
  });

  it('waiters take turns: each release hands the key to exactly one of them, tokens increasing', async () => {
    const prefix = etcd.uniquePrefix();
    const providers = Array.from({ length: 3 }, () => etcd.provider({ prefix }));
    const order: Array<{ owner: string; token: bigint }> = [];
    let holding = 0;
    let overlap = false;
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const p = providers[i % providers.length]!;
        const won = await p.waitForLease('turns', `w${i}`, LONG_TTL, { timeoutMs: 30_000 });
        if (++holding > 1) overlap = true;
        order.push({ owner: won.owner, token: BigInt(won.fencingToken) });
        await new Promise((r) => setTimeout(r, 20)); // "work" while holding
        holding--;
        await p.releaseLease('turns', won.owner);
      }),
    );
    expect(overlap).toBe(false);
    expect(new Set(order.map((o) => o.owner)).size).toBe(6);
    for (let i = 1; i < order.length; i++) expect(order[i]!.token).toBeGreaterThan(order[i - 1]!.token);
  });

  it('a transfer to the waiting owner ends the wait', async () => {
    const prefix = etcd.uniquePrefix();
    const holder = etcd.provider({ prefix });
    const b = observedProvider(prefix);
    await holder.acquireLease('t', 'A', LONG_TTL);
    const waiting = b.provider.waitForLease('t', 'B', LONG_TTL, { timeoutMs: 20_000 });
    await waitFor('B to be waiting on its watch', () => (b.count('contended', 'B') >= 2 ? true : undefined), { timeoutMs: 5000 });
    const transferredAt = performance.now();
    expect(await holder.transferLease('t', 'A', 'B', LONG_TTL)).toBe(true);
    await expect(waiting).resolves.toMatchObject({ acquired: true, owner: 'B' });
    expect(performance.now() - transferredAt).toBeLessThan(1000);
  });
});

describe('giving up holds nothing', () => {
  it('a timeout rejects with LeaseWaitTimeoutError and the waiter never takes the key later', async () => {
    const prefix = etcd.uniquePrefix();
    const holder = etcd.provider({ prefix });
    const b = etcd.provider({ prefix });
    await holder.acquireLease('k', 'A', LONG_TTL);
    const startedAt = performance.now();
    const error = await b.waitForLease('k', 'B', LONG_TTL, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseWaitTimeoutError);
    expect(error).toMatchObject({ code: 'ELEASE_TIMEOUT' });
    expect(performance.now() - startedAt).toBeLessThan(1000);
    await holder.releaseLease('k', 'A');
    // Were B's watch still alive, B would grab the key now; C getting it shows B does not.
    expect(await holder.acquireLease('k', 'C', LONG_TTL)).toMatchObject({ acquired: true, owner: 'C' });
  });

  it('an abort while an acquire is in flight rejects at once, and the acquire it made is undone', async () => {
    const prefix = etcd.uniquePrefix();
    const b = observedProvider(prefix);
    const controller = new AbortController();
    // The first attempt is sent synchronously by the call: aborting right after leaves it in flight.
    const waiting = b.provider.waitForLease('free', 'B', LONG_TTL, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toBeInstanceOf(LeaseAbortedError);
    await waitFor('the in-flight attempt to win', () => (b.count('acquired', 'B') === 1 ? true : undefined), { timeoutMs: 5000 });
    // Only the undo can free the key before its 30 s TTL.
    await waitFor('the undo', async () => ((await b.provider.getLease('free')) === undefined ? true : undefined), { timeoutMs: 5000 });
  });

  it('an abort while waiting rejects with LeaseAbortedError', async () => {
    const prefix = etcd.uniquePrefix();
    const holder = etcd.provider({ prefix });
    const b = observedProvider(prefix);
    await holder.acquireLease('k', 'A', LONG_TTL);
    const controller = new AbortController();
    const waiting = b.provider.waitForLease('k', 'B', LONG_TTL, { signal: controller.signal });
    await waitFor('B to be waiting', () => (b.count('contended', 'B') >= 2 ? true : undefined), { timeoutMs: 5000 });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ELEASE_ABORTED' });
    await holder.releaseLease('k', 'A');
    expect(await holder.acquireLease('k', 'C', LONG_TTL)).toMatchObject({ acquired: true });
  });

  it('close() rejects waiters with ProviderClosedError', async () => {
    const prefix = etcd.uniquePrefix();
    const holder = etcd.provider({ prefix });
    const b = observedProvider(prefix);
    await holder.acquireLease('k', 'A', LONG_TTL);
    const waiting = b.provider.waitForLease('k', 'B', LONG_TTL);
    await waitFor('B to be waiting', () => (b.count('contended', 'B') >= 1 ? true : undefined), { timeoutMs: 5000 });
    // The expectation is attached before close(): close() rejects the waiter while it runs, and a
    // rejection nobody listens to yet is an unhandled rejection for the test runner.
    const rejected = expect(waiting).rejects.toBeInstanceOf(ProviderClosedError);
    await b.provider.close();
    await rejected;
    await expect(b.provider.waitForLease('k', 'B', LONG_TTL)).rejects.toBeInstanceOf(ProviderClosedError);
  });
});
