import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EtcdUnavailableError, type EtcdLeaseProvider, type LeaseEvent } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { recordRequests, type RequestLog } from '../support/request-log.js';
import { waitFor } from '../support/wait.js';

// A cluster whose commits are slow — the followers' links carry PEER_LATENCY_MS each way, so the leader needs about a
// second to hear a quorum's acks — while the client talks to the leader over a fast link. Every Txn and LeaseGrant the
// process sends is recorded (support/request-log.ts).
//
// Not tested here: calls with the default 500 ms attempt floor. Before any answer has taught the adaptive timeout the
// slow commits, attempts time out after committing, two timeouts in a row open the healthy leader's circuit breaker,
// and calls fail at their deadline (measured: 29 of 88 calls failed, write amplification 5.9, the circuit opened 6
// times). The tests below set a floor above the commit latency, so that only what each one checks can cut an attempt.
const etcd = useEtcdCluster();
const PEER_LATENCY_MS = 400;
const TTL_MS = 10_000;

let log: RequestLog;
let leader: number;

beforeAll(() => {
  log = recordRequests();
});
afterAll(() => log.restore());

beforeEach(async () => {
  leader = await etcd.cluster.leader();
  for (let i = 0; i < etcd.cluster.size; i++) if (i !== leader) await etcd.cluster.setLatency(i, PEER_LATENCY_MS);
  log.clear();
});

afterEach(async () => {
  for (let i = 0; i < etcd.cluster.size; i++) await etcd.cluster.heal(i);
});

const keyOf = (p: EtcdLeaseProvider, key: string) => Buffer.from(p.prefix + key, 'utf8').toString('latin1');

describe('slow commits (followers far away)', () => {
  it('one call with a short deadline in a batch does not fail the others, and opens no circuit', async () => {
    const events: LeaseEvent[] = [];
    // An attempt floor above the commit latency, so that nothing but the short deadline could cut an attempt (and the
    // known breaker problem of the test above stays out of this one).
    const p = etcd.provider({ hosts: [etcd.cluster.endpoint(leader)], attemptTimeoutMs: 3000, onEvent: (e) => events.push(e) });
    await Promise.all(Array.from({ length: 4 }, (_, i) => p.acquireLease(`warm-${i}`, 'A', TTL_MS)));
    await p.acquireLease('warm-again', 'A', TTL_MS);
    log.clear();

    // The first call finds the committer idle and goes alone; the rest, the short one among them, queue behind it
    // and leave together in the next batch.
    const others = Promise.all(Array.from({ length: 16 }, (_, i) => p.acquireLease(`other-${i}`, 'A', TTL_MS)));
    const short = p.acquireLease('short', 'A', TTL_MS, { deadlineMs: 300 }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const [results, shortOutcome] = await Promise.all([others, short]);

    for (const r of results) expect(r).toMatchObject({ acquired: true });
    // Precondition: the short call really rode in a batch with others (its key and theirs in one Txn).
    const shared = log.txns.find((t) => t.keys.includes(keyOf(p, 'short')) && t.keys.some((k) => k.startsWith(keyOf(p, 'other-'))));
    expect(shared, 'the short call shared a batch').toBeDefined();
    // None of the others was sent twice: the batch was not failed at the short call's deadline and re-sent.
    for (let i = 0; i < 16; i++) expect(log.sendsOf(keyOf(p, `other-${i}`)), `other-${i}`).toBe(1);
    // The batch's gRPC deadline is an attempt timeout, never the short call's 300 ms.
    expect(shared!.timeoutMs).toBeGreaterThanOrEqual(3000 - 50);
    expect(events.filter((e) => e.type === 'circuit' && e.state === 'open')).toEqual([]);
    // The short call itself either made it or gave up with the typed error.
    if ('error' in shortOutcome) expect(shortOutcome.error).toBeInstanceOf(EtcdUnavailableError);
  });

  it('an attempt abandoned while waiting for a lease grant is never sent', async () => {
    // A fresh provider has no pooled lease: its first call waits a slow LeaseGrant out. The attempt floor is above
    // the commit latency so that the later call below is not cut by it (see the header).
    const p = etcd.provider({ hosts: [etcd.cluster.endpoint(leader)], attemptTimeoutMs: 3000 });
    const abandoned = await p.acquireLease('abandoned', 'A', TTL_MS, { deadlineMs: 200 }).catch((e: unknown) => e);
    expect(abandoned).toBeInstanceOf(EtcdUnavailableError);
    expect(log.grants.length, 'precondition: the call was waiting for a grant').toBeGreaterThan(0);
    expect(log.grants.some((g) => g.outcome === undefined), 'precondition: the call gave up before the grant was answered').toBe(true);
    await waitFor('the lease grant to be answered', () => log.grants.every((g) => g.outcome !== undefined), { timeoutMs: 10_000 });
    // A later call on the granted lease: an abandoned attempt resumed by that grant would have been sent before it.
    expect(await p.acquireLease('after', 'A', TTL_MS)).toMatchObject({ acquired: true });
    expect(log.sendsOf(keyOf(p, 'after'))).toBeGreaterThan(0);
    expect(log.sendsOf(keyOf(p, 'abandoned'))).toBe(0);
    expect(await p.getLeaseOwner('abandoned')).toBeUndefined();
  });
});
