import { describe, expect, it } from 'vitest';
import { ProviderClosedError } from '../errors/closed.js';
import { EtcdNoSpaceError } from '../errors/no-space.js';
import { EtcdOverloadedError } from '../errors/overloaded.js';
import { LeaseLostError } from '../errors/lease-lost.js';
import { SuspendableClock } from '../../test/chaos/suspendable-clock.js';
import { FakeLeaseStore, until } from '../../test/support/fake-lease-store.js';
import { LeaseClock } from '../clock/lease-clock.js';
import { LeaseObserver } from '../metrics/observer.js';
import { POLICY } from '../policy.js';
import { hold } from './hold.js';

const K = 'k';
const TTL = 300;

function reasonOf(signal: AbortSignal): string | undefined {
  return signal.aborted ? (signal.reason as LeaseLostError).reason : undefined;
}

describe('hold (against an in-memory store)', () => {
  it('renews about every ttl/3 while held and watches from the revision after its acquire', async () => {
    const store = new FakeLeaseStore();
    const handle = await hold(store.ops, K, 'A', TTL, undefined);
    expect(store.watches[0]!.startRevision).toBe(String(Number(handle.fencingToken) + 1));
    store.connectWatches();
    const startedAt = performance.now();
    await until(() => store.calls.filter((c) => c === 'renew A').length >= 6, 3000, 'six renews');
    const elapsed = performance.now() - startedAt;
    expect(elapsed).toBeGreaterThan(5 * (TTL / 3) - 20);
    expect(elapsed).toBeLessThan(6 * (TTL / 3) + 300);
    expect(handle.signal.aborted).toBe(false);
    await handle.release();
  });

  it('a renew answering false aborts the signal at once', async () => {
    const store = new FakeLeaseStore();
    const handle = await hold(store.ops, K, 'A', TTL, undefined);
    store.renewAnswer = false;
    await until(() => handle.signal.aborted, 1000, 'the signal');
    expect(handle.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(reasonOf(handle.signal)).toBe('renew-refused');
  });

  it('a shed renewal (or one refused for space) is no answer yet: the handle renews again within its window', async () => {
    const store = new FakeLeaseStore();
    const handle = await hold(store.ops, K, 'A', TTL, undefined);
    const renew = store.ops.renew;
    let refused = 0;
    store.ops.renew = (...args) => {
      refused++;
      if (refused === 1) return Promise.reject(new EtcdOverloadedError('renewLease', 1000, 1000));
      if (refused === 2) return Promise.reject(new EtcdNoSpaceError('renewLease'));
      return renew(...args);
    };
    await until(() => store.calls.filter((c) => c === 'renew A').length >= 3, 3000, 'renews after the refused ones');
    expect(refused).toBeGreaterThanOrEqual(3);
    expect(handle.signal.aborted).toBe(false);
    expect(store.calls).not.toContain('release A');
    await handle.release();
  });

  it('the watch seeing the key deleted aborts the signal before any renew would notice', async () => {
    const store = new FakeLeaseStore();
    const handle = await hold(store.ops, K, 'A', 60_000, undefined); // first renew only after 20 s
    store.connectWatches();
    store.delete(K);
    expect(reasonOf(handle.signal)).toBe('deleted');
  });

  it('the watch seeing another owner written (transferred away) aborts with "taken"', async () => {
    const store = new FakeLeaseStore();
    const handle = await hold(store.ops, K, 'A', 60_000, undefined);
    store.connectWatches();
    store.put(K, 'A'); // our own renew: still held
    expect(handle.signal.aborted).toBe(false);
    store.put(K, 'B');
    expect(reasonOf(handle.signal)).toBe('taken');
  });

  it('when renews hang, the signal aborts by (last successful send time) + ttl and the key is released', async () => {
    const store = new FakeLeaseStore();
    const sentAt = performance.now();
    const handle = await hold(store.ops, K, 'A', TTL, undefined);
    const openGate = store.holdRenews();
    await until(() => handle.signal.aborted, 2000, 'the signal');
    const abortedAfter = performance.now() - sentAt;
    expect(reasonOf(handle.signal)).toBe('expired');
    expect(abortedAfter).toBeLessThanOrEqual(TTL + 15); // timer lateness
    expect(abortedAfter).toBeGreaterThan(TTL - 50);
    await until(() => store.calls.includes('release A'), 1000, 'the release');
    expect(store.values.has(K)).toBe(false);
    openGate();
  });

  it('release() aborts the signal as "released", deletes the key and is idempotent', async () => {
    const store = new FakeLeaseStore();
    const handle = await hold(store.ops, K, 'A', TTL, undefined);
    await Promise.all([handle.release(), handle.release()]);
    expect(reasonOf(handle.signal)).toBe('released');
    expect(store.calls.filter((c) => c === 'release A')).toHaveLength(1);
    expect(store.values.has(K)).toBe(false);
    const renews = store.calls.filter((c) => c.startsWith('renew')).length;
    await new Promise((r) => setTimeout(r, TTL));
    expect(store.calls.filter((c) => c.startsWith('renew')).length).toBe(renews);
  });

  it('await using releases at the end of the scope', async () => {
    const store = new FakeLeaseStore();
    let signal: AbortSignal | undefined;
    {
      await using handle = await hold(store.ops, K, 'A', TTL, undefined);
      signal = handle.signal;
      expect(store.values.get(K)?.owner).toBe('A');
    }
    expect(signal.aborted).toBe(true);
    expect(store.values.has(K)).toBe(false);
  });

  it('closing ends every handle as "closed" and releases its key before close resolves', async () => {
    const store = new FakeLeaseStore();
    const a = await hold(store.ops, 'a', 'A', TTL, undefined);
    const b = await hold(store.ops, 'b', 'B', TTL, undefined);
    await store.lifecycle.close(1000);
    expect([reasonOf(a.signal), reasonOf(b.signal)]).toEqual(['closed', 'closed']);
    expect(store.values.size).toBe(0);
    expect(store.openWatches()).toHaveLength(0);
    await expect(hold(store.ops, 'c', 'C', TTL, undefined)).rejects.toBeInstanceOf(ProviderClosedError);
  });
});

describe('hold when the wall clock jumps ahead of the monotonic clock (a suspend, or a forward step)', () => {
  /** A store whose provider clock's wall clock the test moves; a handle on K, settled in. */
  async function heldWithJumpableClock() {
    const source = new SuspendableClock();
    const store = new FakeLeaseStore(new LeaseObserver({ logger: {} }), new LeaseClock(source));
    const handle = await hold(store.ops, K, 'A', TTL, undefined);
    store.connectWatches();
    await until(() => store.calls.filter((c) => c === 'renew A').length >= 2, 2000, 'two renews');
    return { source, store, handle };
  }
  const renews = (store: FakeLeaseStore) => store.calls.filter((c) => c === 'renew A').length;

  it('a step far past the window does not end the handle: it renews at once, etcd says the key is still ours, it goes on', async () => {
    const { source, store, handle } = await heldWithJumpableClock();
    source.jumpWall(60_000);
    const before = renews(store);
    await new Promise((r) => setTimeout(r, 4 * TTL)); // several windows of real time
    expect(reasonOf(handle.signal)).toBeUndefined();
    expect(store.values.get(K)?.owner).toBe('A');
    expect(store.calls).not.toContain('release A');
    expect(renews(store) - before).toBeGreaterThanOrEqual(3); // renewing every ttl/3 again
    await handle.release();
  });

  it('woken from a suspend in which the key went to someone else, the handle aborts as soon as etcd says so', async () => {
    const { source, store, handle } = await heldWithJumpableClock();
    store.values.set(K, { owner: 'B', modRevision: String(++store.revision) }); // unseen by the watch
    source.jumpWall(60_000);
    const wokeAt = performance.now();
    await until(() => handle.signal.aborted, POLICY.clockJump.checkEveryMs + 500, 'the signal');
    expect(reasonOf(handle.signal)).toBe('renew-refused');
    expect(performance.now() - wokeAt).toBeLessThanOrEqual(POLICY.clockJump.checkEveryMs + 100);
  });

  it('woken from a suspend with etcd out of reach, the handle aborts as expired within the renew deadline', async () => {
    const { source, store, handle } = await heldWithJumpableClock();
    const openGate = store.holdRenews();
    source.jumpWall(60_000);
    const wokeAt = performance.now();
    await until(() => handle.signal.aborted, POLICY.clockJump.checkEveryMs + POLICY.clockJump.renewMs + 1000, 'the signal');
    expect(reasonOf(handle.signal)).toBe('expired');
    expect(performance.now() - wokeAt).toBeLessThanOrEqual(POLICY.clockJump.checkEveryMs + POLICY.clockJump.renewMs + 100);
    openGate();
  });

  it('a window over even without the jump (renews failing all along) ends as expired without asking again', async () => {
    const { source, store, handle } = await heldWithJumpableClock();
    const openGate = store.holdRenews();
    await until(() => handle.signal.aborted, 2000, 'the signal');
    expect(reasonOf(handle.signal)).toBe('expired');
    source.jumpWall(60_000); // after the end: nothing more happens
    openGate();
  });
});

