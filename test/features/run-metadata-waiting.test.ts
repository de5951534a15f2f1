import { describe, expect, it } from 'vitest';
import { LeaseArgumentTypeError, type LeaseLostError } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

// waitForLease and hold take run metadata (the optional extension) in their options: the lease is taken with it, renewed and
// released only with it, and a transfer to the same owner with other metadata is not "ours".
const etcd = useEtcdCluster();
const TTL = 3000;

describe('waiting and holding with run metadata', () => {
  it('a handle renews and releases with its metadata, and ends when the key is taken by the same owner with another run', async () => {
    const prefix = etcd.uniquePrefix();
    const p = etcd.provider({ prefix });
    const other = etcd.provider({ prefix });
    const handle = await p.hold('k', 'owner', TTL, { metadata: 'run-1', timeoutMs: 5000 });
    expect(handle.metadata).toBe('run-1');
    expect(await other.getLeaseRecord('k')).toEqual({ owner: 'owner', metadata: 'run-1' });
    // renews keep it (they would fail if they carried no metadata): past the first TTL it is still ours
    await waitFor('two renews', async () => (BigInt((await other.getLease('k'))!.fencingToken) > BigInt(handle.fencingToken) ? true : undefined), {
      timeoutMs: 5000,
    });
    expect(handle.signal.aborted).toBe(false);
    // the same owner string with another run takes it over: for the handle, that is someone else
    expect(await other.transferLease('k', 'owner', 'owner', TTL, 'run-1', 'run-2')).toBe(true);
    await waitFor('the handle to notice', async () => (handle.signal.aborted ? true : undefined), { timeoutMs: 5000 });
    expect((handle.signal.reason as LeaseLostError).reason).toBe('taken');
    await handle.release(); // run-1 no longer holds it: run-2's lease stays
    expect(await other.getLeaseRecord('k')).toEqual({ owner: 'owner', metadata: 'run-2' });
  });

  it('a waiter with metadata wakes and wins when the key is handed to it, and release needs that metadata', async () => {
    const prefix = etcd.uniquePrefix();
    const p = etcd.provider({ prefix });
    const holder = etcd.provider({ prefix });
    await holder.acquireLease('k', 'A', TTL, 'run-a');
    const waiting = p.waitForLease('k', 'B', TTL, { metadata: 'run-b', timeoutMs: 10_000 });
    expect(await holder.transferLease('k', 'A', 'B', TTL, 'run-a', 'run-b')).toBe(true);
    await expect(waiting).resolves.toMatchObject({ acquired: true, owner: 'B' });
    await p.releaseLease('k', 'B'); // no metadata: not this lease
    expect(await p.getLeaseRecord('k')).toEqual({ owner: 'B', metadata: 'run-b' });
    await p.releaseLease('k', 'B', 'run-b');
    expect(await p.getLeaseRecord('k')).toBeUndefined();
  });

  it('refuses metadata that is not a string, naming the option, before anything is sent', async () => {
    const p = etcd.provider();
    await expect(p.hold('k', 'A', TTL, { metadata: 42 as never })).rejects.toThrow(LeaseArgumentTypeError);
    await expect(p.waitForLease('k', 'A', TTL, { metadata: 'a\uD800' })).rejects.toThrow(/^options\.metadata/);
  });
});
