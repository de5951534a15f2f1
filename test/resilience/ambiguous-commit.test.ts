import { Etcd3 } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationSet } from '../../src/calls/operation-set.js';
import { EtcdCore } from '../../src/core/etcd-core.js';
import { read, remove, valueIs } from '../../src/operations/etcd-txn.js';
import { EtcdLeaseProvider, EtcdUnavailableError } from '../../src/index.js';
import { createLeaseProvider } from '../../src/provider.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { recordRequests, type RequestLog } from '../support/request-log.js';
import { waitFor } from '../support/wait.js';

// An ambiguous failure: the write commits, but its answer never reaches the client (the member's
// client proxy drops server->client bytes). The attempt times out, the provider retries, and the
// retried call must report what really happened — never a loss that was a win, never the reverse —
// with run metadata as without.
// As in Mastra, the call is made by the provider that holds the lease (it knows its own last write), so its
// first attempt is the one that commits; a provider that must first read the key needs an answer to get there.
// A longer election timeout than etcd's 1 s: the late-release test holds one follower's bytes for 0.8 s each way, and that
// follower must not call an election over the gap (it would only slow the test down, not change what it checks).
const etcd = useEtcdCluster({ electionTimeoutMs: 3000 });

let log: RequestLog;
beforeAll(() => {
  log = recordRequests();
});
afterAll(() => log.restore());

afterEach(async () => {
  for (let i = 0; i < etcd.cluster.size; i++) await etcd.cluster.heal(i);
});

async function throughLossyMember<T>(
  call: (p: EtcdLeaseProvider) => Promise<T>,
  committed: () => Promise<boolean>,
  prefix: string,
  setup: (p: EtcdLeaseProvider) => Promise<unknown> = async () => {},
): Promise<T> {
  // Its own core, so that its requests can be told apart in the log; the core builds the client as the provider
  // does (a plain etcd3 client would re-send a failed Txn itself, below the log, and hide the retry).
  const options = { hosts: [etcd.cluster.endpoint(0)], prefix, attemptTimeoutMs: 300, deadlineMs: 20_000 };
  const core = new EtcdCore(options);
  const { client } = core;
  const lossy = createLeaseProvider(options, { core });
  try {
    // Warm the lease pool first: a LeaseGrant through the lossy member would lose its answer too,
    // and the operation under test would never be sent.
    await lossy.acquireLease('warm-up', 'W', 10_000);
    await setup(lossy);
    await etcd.cluster.dropResponses(0, true);
    const calledAt = performance.now();
    const pending = call(lossy);
    pending.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    await waitFor('the write to commit', async () => ((await committed()) ? true : undefined), { timeoutMs: 10_000 });
    await etcd.cluster.dropResponses(0, false);
    const result = await pending;
    // Precondition: the answer really was lost and the call answered from a retry (an attempt sent after the
    // commit) — else these tests would only show a plain call working.
    const key = Buffer.from(`${prefix}k`, 'utf8').toString('latin1');
    const sends = log.txns.filter((t) => t.origin === client.kv && t.sentAt >= calledAt && t.keys.includes(key)).length;
    expect(sends, 'attempts of the call under test').toBeGreaterThanOrEqual(2);
    return result;
  } finally {
    await etcd.cluster.dropResponses(0, false);
    await lossy.close();
    core.close(new Error('test over'));
  }
}

describe.each([
  ['without metadata', undefined],
  ['with run metadata', 'run-\u0000-1'],
])('ambiguous failures are resolved by idempotent retries, %s', (_, metadata) => {
  const record = (owner: string) => (metadata === undefined ? { owner } : { owner, metadata });

  it('an acquire whose answer was lost is retried and reports the win', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    const result = await throughLossyMember((p) => p.acquireLease('k', 'A', 10_000, metadata), async () => (await observer.getLeaseOwner('k')) === 'A', prefix);
    expect(result).toMatchObject({ acquired: true, owner: 'A' });
    expect(await observer.getLeaseRecord('k')).toStrictEqual(record('A'));
  });

  it('a transfer whose answer was lost is retried and reports true', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    const result = await throughLossyMember(
      (p) => p.transferLease('k', 'A', 'B', 10_000, metadata, metadata && `${metadata}-b`),
      async () => (await observer.getLeaseOwner('k')) === 'B',
      prefix,
      (p) => p.acquireLease('k', 'A', 10_000, metadata),
    );
    expect(result).toBe(true);
    expect(await observer.getLeaseRecord('k')).toStrictEqual(metadata === undefined ? { owner: 'B' } : { owner: 'B', metadata: `${metadata}-b` });
  });

  it('a renew whose answer was lost is retried and reports true', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    let before = '0';
    const result = await throughLossyMember(
      (p) => p.renewLease('k', 'A', 10_000, metadata),
      async () => BigInt((await observer.getLease('k'))?.fencingToken ?? '0') > BigInt(before),
      prefix,
      async (p) => (before = (await p.acquireLease('k', 'A', 10_000, metadata)).fencingToken!),
    );
    expect(result).toBe(true);
    expect(await observer.getLeaseRecord('k')).toStrictEqual(record('A'));
  });

  it('a release whose answer was lost is retried and the key is free', async () => {
    const prefix = etcd.uniquePrefix();
    const observer = etcd.provider({ prefix });
    await throughLossyMember(
      (p) => p.releaseLease('k', 'A', metadata),
      async () => (await observer.getLeaseOwner('k')) === undefined,
      prefix,
      (p) => p.acquireLease('k', 'A', 10_000, metadata),
    );
    expect(await observer.getLeaseOwner('k')).toBeUndefined();
  });
});

/** The release of the days before tenure guards: deletes whenever the value matches, whatever write it is. */
const OWNER_ONLY_RELEASE: OperationSet = {
  ...OPERATIONS,
  release: { txn: (key, value) => ({ compare: [valueIs(key, value)], success: [remove(key)], failure: [read(key)] }), decode: OPERATIONS.release.decode },
};

/**
 * A release that gave up while its attempt was still on the wire must never delete the tenure the same owner took
 * after it returned. `releaser` reaches etcd only through member `slow`, whose links hold bytes for LATENCY_MS: its
 * release ends at its short deadline (EtcdUnavailableError) with the attempt still travelling — the gRPC call stays
 * open, so the bytes do arrive, and `slow` forwards the proposal over its slow peer link. Meanwhile another process
 * with the same owner string takes the key through the leader. Returns the record left once everything the releaser
 * sent has been answered (a late answer must not make it send anything more).
 */
async function lateReleaseAfterReacquire(operations: OperationSet, metadata: string | undefined) {
  const LATENCY_MS = 800;
  const leader = await etcd.cluster.leader();
  const slow = (leader + 1) % etcd.cluster.size;
  const prefix = etcd.uniquePrefix();
  const observer = etcd.provider({ prefix, hosts: [etcd.cluster.endpoint(leader)] });
  // The releaser's own client, so the requests it sends can be told apart in the log.
  const client = new Etcd3({ hosts: [etcd.cluster.endpoint(slow)] });
  // Attempts far longer than the call: the call gives up, the request does not.
  const releaser = createLeaseProvider({ client, prefix, attemptTimeoutMs: 15_000, deadlineMs: 20_000 }, { operations });
  try {
    // The first tenure, and the connection through `slow`, while every link is fast.
    await releaser.acquireLease('k', 'A', 30_000, metadata);
    await etcd.cluster.setLatency(slow, LATENCY_MS);
    const releasedAt = performance.now();
    const gaveUp = await releaser.releaseLease('k', 'A', metadata, { deadlineMs: 300 }).catch((e: unknown) => e);
    expect(gaveUp).toBeInstanceOf(EtcdUnavailableError);
    // The same owner, another process: it finds the key still held by A and makes it a write of its own.
    const second = await observer.acquireLease('k', 'A', 30_000, metadata);
    const sent = () => log.txns.filter((t) => t.origin === client.kv && t.sentAt >= releasedAt);
    // An answered attempt that led to another request would show that request here, still unanswered.
    await waitFor('every request of the release to be answered', () => sent().length > 0 && sent().every((t) => t.outcome !== undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    return { record: await observer.getLeaseRecord('k'), second, requests: sent().length };
  } finally {
    await etcd.cluster.heal(slow);
    await releaser.close();
    client.close();
  }
}

describe('a release that gave up while its attempt was on the wire', () => {
  it.each([
    ['without metadata', undefined],
    ['with run metadata', 'run-7'],
  ])('never deletes the tenure the same owner took after it returned (%s)', async (_, metadata) => {
    const { record, second } = await lateReleaseAfterReacquire(OPERATIONS, metadata);
    expect(second).toMatchObject({ acquired: true });
    expect(record).toStrictEqual(metadata === undefined ? { owner: 'A' } : { owner: 'A', metadata });
  });

  it('negative control: an owner-only release, the same way, deletes that tenure', async () => {
    const { record, second } = await lateReleaseAfterReacquire(OWNER_ONLY_RELEASE, undefined);
    expect(second).toMatchObject({ acquired: true });
    expect(record).toBeUndefined();
  });
});
