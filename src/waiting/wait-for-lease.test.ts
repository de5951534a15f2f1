import { describe, expect, it } from 'vitest';
import { LeaseAbortedError } from '../errors/aborted.js';
import { ProviderClosedError } from '../errors/closed.js';
import { EtcdNoSpaceError } from '../errors/no-space.js';
import { EtcdOverloadedError } from '../errors/overloaded.js';
import { EtcdPermissionError } from '../errors/permission.js';
import { LeaseWaitTimeoutError } from '../errors/wait-timeout.js';
import { FakeLeaseStore, until } from '../../test/support/fake-lease-store.js';
import { waitForLease } from './wait-for-lease.js';

const K = 'k';

describe('waitForLease (against an in-memory store)', () => {
  it('a free key is won by the first attempt, without opening a watch', async () => {
    const store = new FakeLeaseStore();
    const won = await waitForLease(store.ops, K, 'B', 2000, undefined);
    expect(won.result).toEqual({ acquired: true, owner: 'B', fencingToken: '11' });
    expect(store.watches).toHaveLength(0);
  });

  it('a release seen by the watch wakes the waiter at once, not at the safety-net re-check', async () => {
    const store = new FakeLeaseStore();
    store.put(K, 'A');
    const waiting = waitForLease(store.ops, K, 'B', 10_000, undefined);
    await until(() => store.watches.length === 1, 1000, 'the watch');
    store.connectWatches();
    await until(() => store.calls.filter((c) => c === 'acquire B').length === 2, 1000, 'the re-check after connecting');
    const releasedAt = performance.now();
    store.delete(K);
    const won = await waiting;
    expect(performance.now() - releasedAt).toBeLessThan(200); // the re-check interval is at least 800 ms
    expect(won.result.fencingToken).toBe(String(store.revision));
    expect(store.openWatches()).toHaveLength(0);
  });

  it('a release between the lost attempt and the watch starting is not missed', async () => {
    const store = new FakeLeaseStore();
    store.put(K, 'A');
    const waiting = waitForLease(store.ops, K, 'B', 10_000, undefined);
    await until(() => store.watches.length === 1, 1000, 'the watch');
    store.delete(K); // the watch is not connected yet: this event is never delivered
    const connectedAt = performance.now();
    store.connectWatches();
    await waiting;
    expect(performance.now() - connectedAt).toBeLessThan(200);
  });

  it('a transfer to the waiting owner wakes it, and its acquire confirms ownership', async () => {
    const store = new FakeLeaseStore();
    store.put(K, 'A');
    const waiting = waitForLease(store.ops, K, 'B', 10_000, undefined);
    await until(() => store.watches.length === 1, 1000, 'the watch');
    store.connectWatches();
    await until(() => store.calls.filter((c) => c === 'acquire B').length === 2, 1000, 'the re-check');
    store.put(K, 'B');
    await expect(waiting).resolves.toMatchObject({ result: { acquired: true, owner: 'B' } });
  });

  it('times out with LeaseWaitTimeoutError, closes its watch and holds nothing', async () => {
    const store = new FakeLeaseStore();
    store.put(K, 'A');
    const error = await waitForLease(store.ops, K, 'B', 2000, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseWaitTimeoutError);
    expect(error).toMatchObject({ code: 'ELEASE_TIMEOUT', timeoutMs: 50 });
    expect(store.openWatches()).toHaveLength(0);
    expect(store.values.get(K)?.owner).toBe('A');
  });

  it('an already aborted signal rejects without sending anything', async () => {
    const store = new FakeLeaseStore();
    const error = await waitForLease(store.ops, K, 'B', 2000, { signal: AbortSignal.abort('no') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseAbortedError);
    expect(store.calls).toEqual([]);
  });

  it('an abort during an attempt that then wins rejects at once and undoes exactly that write', async () => {
    const store = new FakeLeaseStore();
    const openGate = store.holdAcquires();
    const controller = new AbortController();
    const waiting = waitForLease(store.ops, K, 'B', 2000, { signal: controller.signal });
    await until(() => store.calls.length === 1, 1000, 'the attempt');
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(LeaseAbortedError);
    expect(store.values.has(K)).toBe(false); // not applied yet
    openGate();
    await until(() => store.lifecycle.pendingCleanups === 0 && store.calls.length === 2, 1000, 'the undo');
    expect(store.calls[1]).toBe('releaseWrite B 11');
    expect(store.values.has(K)).toBe(false);
  });

  it('after an ambiguous failure (committed, but answered with an error), giving up releases the key', async () => {
    const store = new FakeLeaseStore();
    store.failAcquireAfterCommit = 1_000_000; // every attempt commits and still reports unavailable
    const error = await waitForLease(store.ops, K, 'B', 2000, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseWaitTimeoutError);
    await until(() => store.lifecycle.pendingCleanups === 0, 1000, 'the release');
    expect(store.calls.at(-1)).toBe('release B');
    expect(store.values.has(K)).toBe(false);
  });

  it('retryable errors do not end the wait: the next definite answer wins', async () => {
    const store = new FakeLeaseStore();
    store.failAcquireAfterCommit = 2;
    const won = await waitForLease(store.ops, K, 'B', 2000, { timeoutMs: 2000 });
    expect(won.result.acquired).toBe(true);
    expect(store.calls.filter((c) => c === 'acquire B')).toHaveLength(3);
  });

  it('a shed attempt (or one refused for space) does not end the wait: it tries again within its own timeout', async () => {
    const store = new FakeLeaseStore();
    const acquire = store.ops.acquire;
    let tries = 0;
    store.ops.acquire = (...args) => {
      tries++;
      if (tries === 1) return Promise.reject(new EtcdOverloadedError('waitForLease', 1000, 1000));
      if (tries === 2) return Promise.reject(new EtcdNoSpaceError('waitForLease'));
      return acquire(...args);
    };
    const won = await waitForLease(store.ops, K, 'B', 2000, { timeoutMs: 5000 });
    expect(won.result.acquired).toBe(true);
    expect(tries).toBe(3);
  });

  it('an error retrying cannot fix ends the wait with that error', async () => {
    const store = new FakeLeaseStore();
    const denied = new EtcdPermissionError('acquireLease', 'p/', new Error('permission denied'));
    store.ops.acquire = () => Promise.reject(denied);
    await expect(waitForLease(store.ops, K, 'B', 2000, undefined)).rejects.toBe(denied);
  });

  it('closing rejects waiters with ProviderClosedError and waits for their clean-up', async () => {
    const store = new FakeLeaseStore();
    store.put(K, 'A');
    const waiting = waitForLease(store.ops, K, 'B', 2000, undefined);
    await until(() => store.watches.length === 1, 1000, 'the watch');
    const openGate = store.holdAcquires();
    store.delete(K); // not delivered (watch not connected); the attempt below is the one in flight at close
    store.connectWatches();
    await until(() => store.calls.filter((c) => c === 'acquire B').length === 2, 1000, 'the attempt');
    const closing = store.lifecycle.close(1000);
    await expect(waiting).rejects.toBeInstanceOf(ProviderClosedError);
    openGate();
    await closing;
    expect(store.calls.at(-1)).toMatch(/^releaseWrite B /);
    expect(store.values.has(K)).toBe(false);
  });
});
