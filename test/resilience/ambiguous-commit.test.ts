import { describe, expect, it } from 'vitest';
import { EtcdLeaseProvider } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

// An ambiguous failure: the write commits, but its answer never reaches the client (the member's
// client proxy drops server->client bytes). The attempt times out, the provider retries, and the
// retried call must report what really happened — never a loss that was a win, never the reverse.
// As in Mastra, the call is made by the provider that holds the lease (it knows its own last write), so its
// first attempt is the one that commits; a provider that must first read the key needs an answer to get there.
const etcd = useEtcdCluster();

async function throughLossyMember<T>(
  call: (p: EtcdLeaseProvider) => Promise<T>,
  committed: () => Promise<boolean>,
  prefix: string,
  setup: (p: EtcdLeaseProvider) => Promise<unknown> = async () => {},
): Promise<T> {
  const lossy = new EtcdLeaseProvider({ hosts: [etcd.cluster.endpoint(0)], prefix, attemptTimeoutMs: 300, deadlineMs: 20_000 });
  try {
    // Warm the lease pool first: a LeaseGrant through the lossy member would lose its answer too,
    // and the operation under test would never be sent.
    await lossy.acquireLease('warm-up', 'W', 10_000);
    await setup(lossy);
    await etcd.cluster.dropResponses(0, true);
    const pending = call(lossy);
    pending.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    await waitFor('the write to commit', async () => ((await committed()) ? true : undefined), { timeoutMs: 10_000 });
    await etcd.cluster.dropResponses(0, false);
    return await pending;
  } finally {
    await etcd.cluster.dropResponses(0, false);
    await lossy.close();
  }
}

describe('ambiguous failures are resolved by idempotent retries', () => {
  it('an acquire whose answer was lost is retried and reports the win', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    const result = await throughLossyMember((p) => p.acquireLease('k', 'A', 10_000), async () => (await observer.getLeaseOwner('k')) === 'A', prefix);
    expect(result).toMatchObject({ acquired: true, owner: 'A' });
  });

  it('a transfer whose answer was lost is retried and reports true', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    const result = await throughLossyMember(
      (p) => p.transferLease('k', 'A', 'B', 10_000),
      async () => (await observer.getLeaseOwner('k')) === 'B',
      prefix,
      (p) => p.acquireLease('k', 'A', 10_000),
    );
    expect(result).toBe(true);
    expect(await observer.getLeaseOwner('k')).toBe('B');
  });

  it('a renew whose answer was lost is retried and reports true', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    let before = '0';
    const result = await throughLossyMember(
      (p) => p.renewLease('k', 'A', 10_000),
      async () => BigInt((await observer.getLease('k'))?.fencingToken ?? '0') > BigInt(before),
      prefix,
      async (p) => (before = (await p.acquireLease('k', 'A', 10_000)).fencingToken!),
    );
    expect(result).toBe(true);
  });

  it('a release whose answer was lost is retried and the key is free', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    await throughLossyMember(
      (p) => p.releaseLease('k', 'A'),
      async () => (await observer.getLeaseOwner('k')) === undefined,
      prefix,
      (p) => p.acquireLease('k', 'A', 10_000),
    );
    expect(await observer.getLeaseOwner('k')).toBeUndefined();
  });
});
