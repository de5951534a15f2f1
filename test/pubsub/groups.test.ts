/**
 * Consumer groups across processes on a real cluster: exactly one member gets each event, a SIGKILLed member's
 * events go to a survivor, nack redelivers up to the cap, an acked event is never offered again, a member that
 * unsubscribes hands over what it never settles but keeps what it finishes in time, a group keeps its checkpoint
 * across leave and rejoin whatever `startFrom` says, a hung handler's event is offered again after
 * `inFlightTimeoutMs`, and a joining member that reads only part of a large topic takes nothing from live members.
 */
import type { Event, EventCallback } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { preferredMember } from '../../src/pubsub/groups/assignment.js';
import { decodeClaim, type ClaimValue } from '../../src/pubsub/groups/claim-txns.js';
import { byRevisionThenKey } from '../../src/pubsub/watch/range-read.js';
import type { KeyValue } from '../../src/operations/etcd-txn.js';
import { EventKeys } from '../../src/pubsub/keys/event-keys.js';
import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster, type Namespace } from './support/pubsub-fixture.js';
import type { PubSubProcess } from './support/pubsub-fleet.js';

const etcd = usePubSubCluster();

/** Session TTL of the worker processes: how soon a dead member's claims move. */
const MEMBER_TTL_MS = 3000;

/** The clock every process stamps its reports with (see pubsub-protocol.ts). */
const now = (): number => performance.timeOrigin + performance.now();

let raw: ReturnType<typeof etcd.rawClient> | undefined;
/** One plain etcd3 client for the whole file (the fixture closes it after the last test). */
const rawEtcd = () => (raw ??= etcd.rawClient());

/** The member keys of `group` on `topic` as etcd has them now: one per process subscribed to it. */
async function members(space: Namespace, topic: string, group: string) {
  return (await rawEtcd().getAll().prefix(new EventKeys(space.eventPrefix).member(topic, group, '')).exec()).kvs;
}

async function memberKeys(space: Namespace, topic: string, group: string): Promise<string[]> {
  return (await members(space, topic, group)).map((kv) => kv.key.toString());
}

/** The claims of `group` on `topic` as etcd has them now. */
async function claims(space: Namespace, topic: string, group: string): Promise<Array<ClaimValue | undefined>> {
  const values = await rawEtcd().getAll().prefix(new EventKeys(space.eventPrefix).claim(topic, group, '')).buffers();
  return Object.values(values).map((value) => decodeClaim(value));
}

/**
 * Two worker processes in a fresh namespace, both members of group 'workers' on topic 'jobs' — `first` handling its
 * deliveries as `handling` says, `survivor` acking them — and `count` events `{ from: <survivor's id>, n }`
 * published by the survivor, every one claimed. `held`: the `n`s `first` got (at least one).
 */
async function groupOfTwo(ids: [string, string], env: Record<string, string>, handling: Parameters<PubSubProcess['subscribe']>[1], count: number) {
  const space = etcd.namespace();
  const [first, survivor] = await etcd.processes(space, ids, env);
  await first!.subscribe('jobs', { group: 'workers', ...handling });
  await survivor!.subscribe('jobs', { group: 'workers' });
  expect((await survivor!.publish('jobs', count, { concurrency: 4 })).failed).toBe(0);
  await waitFor('every event claimed', () => first!.deliveries('jobs').length + survivor!.deliveries('jobs').length >= count, { timeoutMs: 30_000 });
  const held = first!.deliveries('jobs').map((d) => d.n);
  expect(held.length).toBeGreaterThan(0);
  return { space, first: first!, survivor: survivor!, held };
}

describe('consumer groups', () => {
  it('a group delivers each event to exactly one member across processes, spread evenly', async () => {
    const space = etcd.namespace();
    const [a, b, c] = await etcd.processes(space, ['a', 'b', 'c']);
    for (const p of [a!, b!, c!]) await p.subscribe('work', { group: 'workers' });
    const published = await a!.publish('work', 600, { concurrency: 8 });
    expect(published.failed).toBe(0);

    const delivered = () => [a!, b!, c!].flatMap((p) => p.deliveries('work'));
    await waitFor('every event delivered', () => new Set(delivered().map((d) => d.n)).size === 600, { timeoutMs: 60_000, intervalMs: 50 });
    // Claims settle before a redelivery could happen (none is expected: everyone acks).
    const all = delivered();
    expect(all.filter((d) => d.attempt !== 1)).toEqual([]);
    expect(all).toHaveLength(600);
    for (const p of [a!, b!, c!]) {
      const share = p.deliveries('work').length;
      expect(share).toBeGreaterThan(600 / 3 / 2);
      expect(share).toBeLessThan((600 / 3) * 2);
    }
  });

  it("a SIGKILLed consumer's claimed events go to a survivor with deliveryAttempt 2, within the member TTL + 2 s", async () => {
    const { first: victim, survivor, held } = await groupOfTwo(['victim', 'survivor'], { GROUP_MEMBER_TTL_MS: String(MEMBER_TTL_MS) }, { handling: 'hold' }, 40);

    const killedAt = now();
    await victim.kill();
    const redelivered = () => survivor.deliveries('jobs').filter((d) => held.includes(d.n));
    await waitFor('the victim’s events at the survivor', () => redelivered().length === held.length, { timeoutMs: MEMBER_TTL_MS + 10_000, intervalMs: 20 });
    for (const d of redelivered()) {
      expect(d.attempt).toBe(2);
      expect(d.at - killedAt).toBeLessThan(MEMBER_TTL_MS + 2000 + 1000); // + one second for a busy 2-core machine
    }
    // Nothing else was delivered twice.
    const ns = survivor.deliveries('jobs').map((d) => d.n);
    expect(new Set(ns).size).toBe(ns.length);
    expect(new Set([...ns, ...held]).size).toBe(40);
  });

  it('an acked event is never offered to a member that joins later; new events are shared with it', async () => {
    const space = etcd.namespace();
    const first = etcd.pubsub(space);
    const late = etcd.pubsub(space);
    const early = collector();
    await first.subscribe('once', early.cb, { group: 'g' });
    for (let n = 0; n < 20; n++) await first.publish('once', { type: 't', runId: 'r', data: { n } });
    await early.until(20);
    await first.flush(); // the acks are written

    const joined = collector();
    await late.subscribe('once', joined.cb, { group: 'g' });
    for (let n = 20; n < 40; n++) await late.publish('once', { type: 't', runId: 'r', data: { n } });
    await waitFor('the new events', () => early.events.length + joined.events.length >= 40, { timeoutMs: 15_000 });
    const lateNs = joined.events.map((e) => (e.data as { n: number }).n);
    expect(lateNs.filter((n) => n < 20)).toEqual([]);
    expect(lateNs.length).toBeGreaterThan(0);
    const allNs = [...early.events, ...joined.events].map((e) => (e.data as { n: number }).n);
    expect(new Set(allNs).size).toBe(40);
    expect(allNs).toHaveLength(40);
  });

  it('nack redelivers with attempt + 1 up to maxDeliveryAttempts, then drops the event (a rejection is a nack)', async () => {
    const space = etcd.namespace();
    const warnings: string[] = [];
    const pubsub = etcd.pubsub(space, { maxDeliveryAttempts: 3, redeliveryDelayMs: 20, logger: { warn: (m) => warnings.push(m) } });
    const attempts: number[] = [];
    const cb: EventCallback = async (event) => {
      attempts.push(event.deliveryAttempt!);
      throw new Error('cannot handle it');
    };
    await pubsub.subscribe('retry', cb, { group: 'g' });
    await pubsub.publish('retry', { type: 't', runId: 'r', data: null });
    await waitFor('three attempts', () => attempts.length >= 3, { timeoutMs: 10_000 });
    await waitFor('the drop warning', () => warnings.some((w) => w.includes('dropped after its last delivery attempt')), { timeoutMs: 10_000 });
    // A later event still flows, and the dropped one is not offered again.
    await pubsub.unsubscribe('retry', cb);
    const next = collector();
    await pubsub.subscribe('retry', next.cb, { group: 'g' });
    await pubsub.publish('retry', { type: 't', runId: 'r', data: { n: 1 } });
    await next.until(1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(next.events.map((e) => e.data)).toEqual([{ n: 1 }]);
  });

  it('the redelivery after a nack keeps the event id (Mastra counts attempts by it) and may go to another process', async () => {
    const space = etcd.namespace();
    const [a, b] = await etcd.processes(space, ['a', 'b']);
    await a!.subscribe('flaky', { group: 'g', handling: 'nack-first' });
    await b!.subscribe('flaky', { group: 'g', handling: 'nack-first' });
    expect((await a!.publish('flaky', 20)).failed).toBe(0);
    const all = () => [...a!.deliveries('flaky'), ...b!.deliveries('flaky')];
    await waitFor('every event delivered twice', () => all().length >= 40, { timeoutMs: 30_000 });
    for (let n = 0; n < 20; n++) {
      const tries = all().filter((d) => d.n === n);
      expect(tries.map((d) => d.attempt).sort()).toEqual([1, 2]);
      expect(new Set(tries.map((d) => d.id)).size).toBe(1);
    }
  });
});

describe('leaving a group (unsubscribe)', () => {
  /**
   * Session TTL of these tests' workers: long, so that only the leave — never the session's expiry — can free a
   * leaver's claims within the bounds below. (The leaver's process stays up, so its session would not expire
   * anyway; a consumer that stopped renewing it instead of deleting its member key would still be too slow.)
   */
  const LONG_TTL_MS = 30_000;

  it('a member that unsubscribes while holding events it never settles: a survivor gets them (attempt 2) within deadlineMs + 3 s, long before its session could expire; the leaver gets nothing more', async () => {
    /** How long the leaver waits for the events it holds: short, so the handover is quick. */
    const DEADLINE_MS = 2000;
    const env = { GROUP_MEMBER_TTL_MS: String(LONG_TTL_MS), DEADLINE_MS: String(DEADLINE_MS) };
    const { first: leaver, survivor, held } = await groupOfTwo(['leaver', 'survivor'], env, { handling: 'hold' }, 40);

    const leftAt = now();
    await leaver.unsubscribe('jobs');
    // Its deliveries so far are all in: they are reported before the answer to the unsubscribe, on one channel.
    const leaverGot = leaver.deliveries('jobs').length;
    // Published while the leaver is still waiting for what it holds (by the leaver itself: its process and session
    // stay up): it claims none of them.
    expect((await leaver.publish('jobs', 20)).failed).toBe(0);

    const redelivered = () => survivor.deliveries('jobs').filter((d) => d.from === 'survivor' && held.includes(d.n));
    // Timeout well under LONG_TTL_MS: if the leave does not free them, nothing else does in time.
    await waitFor('the leaver’s held events at the survivor', () => redelivered().length >= held.length, { timeoutMs: DEADLINE_MS + 10_000, intervalMs: 20 });
    for (const d of redelivered()) {
      expect(d.attempt).toBe(2);
      // The leaver waited DEADLINE_MS for them first; that wait began after leftAt. 250 ms for the processes'
      // clocks, whose origins were read at different times.
      expect(d.at - leftAt).toBeGreaterThan(DEADLINE_MS - 250);
      // Then one delete, the survivor's watch and one claim: a fraction of a second; + 3 s for a busy 2-core
      // machine, still a tenth of the session TTL.
      expect(d.at - leftAt).toBeLessThan(DEADLINE_MS + 3000);
    }

    const later = () => survivor.deliveries('jobs').filter((d) => d.from === 'leaver');
    await waitFor('the events published after the unsubscribe at the survivor', () => later().length >= 20, { timeoutMs: 30_000 });
    expect(later().map((d) => d.attempt)).toEqual(Array(20).fill(1));
    expect(new Set(later().map((d) => d.n)).size).toBe(20);
    // The leaver got nothing after its unsubscribe: neither the new events nor its own back.
    expect(leaver.deliveries('jobs')).toHaveLength(leaverGot);
    // The survivor got each of the first 40 once: its own share at attempt 1, the leaver's at attempt 2.
    const first = survivor.deliveries('jobs').filter((d) => d.from === 'survivor');
    expect(first).toHaveLength(40);
    expect(new Set(first.map((d) => d.n)).size).toBe(40);
    expect(first.filter((d) => d.attempt !== 1).map((d) => d.n).sort((x, y) => x - y)).toEqual([...held].sort((x, y) => x - y));
  });

  it('a member that unsubscribes while finishing events and acks them within the deadline: survivors never get those events (no attempt 2)', async () => {
    /**
     * The leaver acks each delivery this long after it: far longer than from its first delivery to the leave being
     * marked (20 publishes, the claims, one IPC round trip and one write: well under a second even on a busy
     * machine), so the unsubscribe comes while every ack is pending. The test checks that order below.
     */
    const ACK_AFTER_MS = 5000;
    /** How long the leaver may wait for them: far longer than the acks take, so they all land within it. */
    const DEADLINE_MS = 15_000;
    const env = { GROUP_MEMBER_TTL_MS: String(LONG_TTL_MS), DEADLINE_MS: String(DEADLINE_MS) };
    const { space, first: leaver, survivor, held } = await groupOfTwo(['leaver', 'survivor'], env, { handling: 'ack-after', ackAfterMs: ACK_AFTER_MS }, 20);
    expect(await memberKeys(space, 'jobs', 'workers')).toHaveLength(2);

    const leftAt = now();
    const unsubscribed = await leaver.unsubscribe('jobs');
    await waitFor('the leaver’s acks', () => leaver.acks('jobs').length >= held.length, { timeoutMs: ACK_AFTER_MS + 10_000 });
    // The case under test: every ack was sent after the leave was marked (both stamps are the leaver's clock).
    for (const ack of leaver.acks('jobs')) expect(ack.at).toBeGreaterThan(unsubscribed.at);
    // The leave completes once the acks have landed: its member key goes, long before DEADLINE_MS has passed (a
    // leave that ignored the acks and waited the whole deadline would take 15 s).
    await waitFor('the leaver’s member key deleted', async () => (await memberKeys(space, 'jobs', 'workers')).length === 1, { timeoutMs: DEADLINE_MS + 5000, intervalMs: 20 });
    expect(now() - leftAt).toBeLessThan(DEADLINE_MS);

    // A sentinel batch published after the leave completed: once the survivor has it, it has seen the member key's
    // delete (one watch, in revision order) and has long sent any claim it made on it.
    expect((await leaver.publish('jobs', 10)).failed).toBe(0);
    const sentinel = () => survivor.deliveries('jobs').filter((d) => d.from === 'leaver');
    await waitFor('the sentinel batch at the survivor', () => sentinel().length >= 10, { timeoutMs: 30_000 });

    const first = survivor.deliveries('jobs').filter((d) => d.from === 'survivor');
    expect(first.map((d) => d.n).filter((n) => held.includes(n))).toEqual([]);
    expect(survivor.deliveries('jobs').filter((d) => d.attempt !== 1)).toEqual([]);
    expect(new Set([...first.map((d) => d.n), ...held]).size).toBe(20);
    expect(first).toHaveLength(20 - held.length);
    expect(leaver.deliveries('jobs')).toHaveLength(held.length);
    // And in etcd, once the survivor's acks of the sentinels have landed too: every event of the group was finished
    // at its first attempt (a takeover would show attempt 2).
    const finished = await waitFor('every claim done', async () => {
      const all = await claims(space, 'jobs', 'workers');
      return all.length === 30 && all.every((c) => c?.s === 'done') && all;
    }, { timeoutMs: 15_000 });
    expect(finished.map((c) => c!.a)).toEqual(Array(30).fill(1));
  });

  it('a leaving member whose session is lost and renewed before its leave completes does not come back as a member', async () => {
    /** The leave lasts this long (the leaver holds events it never settles): the whole test happens within it. */
    const DEADLINE_MS = 20_000;
    /** How long a member waits before taking an event preferred for another one: far beyond the bound below. */
    const CLAIM_TIMEOUT_MS = 15_000;
    const env = { GROUP_MEMBER_TTL_MS: String(LONG_TTL_MS), DEADLINE_MS: String(DEADLINE_MS), CLAIM_TIMEOUT_MS: String(CLAIM_TIMEOUT_MS) };
    const { space, first: leaver, survivor, held } = await groupOfTwo(['leaver', 'survivor'], env, { handling: 'hold' }, 20);
    // A group the leaver stays in: its member key shows when the leaver's session is renewed (subscribed after
    // 'jobs', so the renewal reaches the 'jobs' consumer first).
    await leaver.subscribe('side', { group: 'stays' });
    const leftAt = now();
    await leaver.unsubscribe('jobs');

    // The session is lost (revoked, as etcd would expire it): its member keys go, the leaver sees its 'side' key go
    // and registers again on a new session.
    const sessionOf = async () => (await members(space, 'side', 'stays')).map((kv) => kv.lease);
    const [lost] = await sessionOf();
    await rawEtcd().leaseClient.leaseRevoke({ ID: lost! });
    await waitFor('the leaver registered again in the group it stays in', async () => (await sessionOf()).some((lease) => lease !== lost), { timeoutMs: 15_000, intervalMs: 20 });
    expect(now() - leftAt).toBeLessThan(DEADLINE_MS); // still leaving 'jobs'

    // It is no member of 'jobs' any more: only the survivor is, and it took over the held events at once.
    expect(await memberKeys(space, 'jobs', 'workers')).toHaveLength(1);
    const redelivered = () => survivor.deliveries('jobs').filter((d) => held.includes(d.n));
    await waitFor('the leaver’s held events at the survivor', () => redelivered().length >= held.length, { timeoutMs: 10_000 });
    expect(redelivered().map((d) => d.attempt)).toEqual(held.map(() => 2));
    // New events all go to the survivor at once (a claim each: well under a second; 4 s for a busy machine), none
    // after CLAIM_TIMEOUT_MS as the fallback for a preferred member that does not claim.
    expect((await leaver.publish('jobs', 20)).failed).toBe(0);
    await waitFor('the new events at the survivor', () => survivor.deliveries('jobs').filter((d) => d.from === 'leaver').length >= 20, { timeoutMs: 4000 });
    expect(now() - leftAt).toBeLessThan(DEADLINE_MS);
  });
});

/** A grouped event `{ n }` (and `pad` bytes of payload). */
const job = (n: number, pad = 0) => ({ type: 'job', runId: 'r', data: { n, pad: 'x'.repeat(pad) } });
const numbers = (events: Event[]) => events.map((e) => (e.data as { n: number }).n).sort((x, y) => x - y);

describe("a group's checkpoint: startFrom applies to a new group only", () => {
  /** The group's only member takes event 1 and leaves; resolves once the leave is over (its ack has landed). */
  async function takeOneAndLeave(pubsub: ReturnType<typeof etcd.pubsub>, space: Namespace, topic: string, startFrom: 'earliest' | 'latest') {
    const first = collector();
    await pubsub.subscribe(topic, first.cb, { group: 'g', startFrom });
    await pubsub.publish(topic, job(1));
    await first.until(1);
    await pubsub.unsubscribe(topic, first.cb);
    await waitFor('the member key deleted', async () => (await memberKeys(space, topic, 'g')).length === 0, { timeoutMs: 10_000 });
    return first;
  }

  /** Event 2 while the group has no member, a member joining with `startFrom`, event 3 live: what it got. */
  async function rejoin(pubsub: ReturnType<typeof etcd.pubsub>, topic: string, startFrom: 'earliest' | 'latest') {
    await pubsub.publish(topic, job(2));
    const back = collector();
    await pubsub.subscribe(topic, back.cb, { group: 'g', startFrom });
    await pubsub.publish(topic, job(3));
    await back.until(2, 10_000);
    await pubsub.flush(); // every claim it made is written: an event it should not take would be claimed with event 2
    return back;
  }

  it("a member that leaves and rejoins with startFrom 'latest' gets what was published while it was away, and nothing it acked", async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space);
    await takeOneAndLeave(pubsub, space, 'cp', 'earliest');
    // The group is nothing but its claims now.
    const back = await rejoin(pubsub, 'cp', 'latest');
    expect(numbers(back.events)).toEqual([2, 3]);
    expect(back.events.map((e) => e.deliveryAttempt)).toEqual([1, 1]);
  });

  it("a restarted worker (a new instance, the old one closed) joining its group with startFrom 'latest' gets the backlog", async () => {
    const space = etcd.namespace();
    const publisher = etcd.pubsub(space);
    const before = etcd.pubsub(space);
    const first = collector();
    await before.subscribe('deploy', first.cb, { group: 'workers' });
    await publisher.publish('deploy', job(1));
    await first.until(1);
    await before.close();

    for (let n = 2; n <= 4; n++) await publisher.publish('deploy', job(n));
    const after = etcd.pubsub(space);
    const resumed = collector();
    await after.subscribe('deploy', resumed.cb, { group: 'workers', startFrom: 'latest' });
    await resumed.until(3, 10_000);
    expect(numbers(resumed.events)).toEqual([2, 3, 4]);
  });

  it("a group created with 'latest' never takes an event from before its creation, even when a member rejoins it with 'earliest'", async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space);
    await pubsub.publish('floor', job(0));
    const first = await takeOneAndLeave(pubsub, space, 'floor', 'latest');
    const back = await rejoin(pubsub, 'floor', 'earliest');
    expect(numbers(back.events)).toEqual([2, 3]);
    expect(numbers(first.events)).toEqual([1]);
  });

  it('a group is forgotten once it has had no member for groupBacklogMs and the events it took have expired: a join is then a new group', async () => {
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space, { retentionMs: 2000, retentionBucketMs: 1000, groupBacklogMs: 3000 });
    const first = collector();
    await pubsub.subscribe('gone', first.cb, { group: 'g' });
    await pubsub.publish('gone', job(1));
    await first.until(1);
    await pubsub.unsubscribe('gone', first.cb);
    // retentionMs + a bucket + 1 s + etcd's expiry sweep, and slack for a busy machine.
    // groupBacklogMs + a bucket + 1 s + etcd's expiry sweep for the group's backlog key, and slack for a busy machine.
    const backlogKey = new EventKeys(space.eventPrefix).backlog('gone', 'g').toString();
    const gone = async () =>
      (await memberKeys(space, 'gone', 'g')).length === 0 && (await claims(space, 'gone', 'g')).length === 0 && (await rawEtcd().get(backlogKey).string()) === null;
    await waitFor('the group’s member key, backlog key and claims gone', gone, { timeoutMs: 15_000, intervalMs: 100 });

    await pubsub.publish('gone', job(2));
    const later = collector();
    await pubsub.subscribe('gone', later.cb, { group: 'g', startFrom: 'latest' });
    await pubsub.publish('gone', job(3));
    await later.until(1, 10_000);
    await pubsub.flush();
    expect(numbers(later.events)).toEqual([3]);
  });

  it("a new group joining with 'latest' through a member that lags behind the leader never takes an event published before the subscribe", async () => {
    // The join's stream starts at the revision of the member it is served by. Here that member is a follower the
    // leader's Raft messages do not reach (held, delivered on heal): an event whose publish has resolved lies above
    // that revision, and the watch delivers it once the member catches up. The group's floor must still be above it.
    const space = etcd.namespace();
    const cluster = etcd.cluster;
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.size;
    const publisher = etcd.pubsub(space, { hosts: [cluster.endpoints()[leader]!] });
    const lagging = etcd.pubsub(space, { hosts: [cluster.endpoints()[follower]!] });
    await publisher.publish('lagging', job(1));
    await waitFor('the follower has the topic', async () => (await lagging.getHistory('lagging')).length === 1, { timeoutMs: 10_000, intervalMs: 50 });
    await cluster.holdOneWay(leader, follower);
    try {
      await publisher.publish('lagging', job(2));
      const later = collector();
      const joined = lagging.subscribe('lagging', later.cb, { group: 'new-group', startFrom: 'latest' });
      await new Promise((resolve) => setTimeout(resolve, 500)); // the join reaches the lagging member meanwhile
      await cluster.heal(follower);
      await joined;
      await publisher.publish('lagging', job(3));
      await later.until(1, 10_000);
      await lagging.flush();
      expect(numbers(later.events)).toEqual([3]);
    } finally {
      await cluster.heal(follower);
    }
  });
});

describe('inFlightTimeoutMs: a handler that neither acks nor nacks', () => {
  interface Got {
    callback: string;
    n: number;
    attempt: number;
    at: number;
    ack: () => Promise<void>;
  }
  /** A callback named `name` that records each delivery with its ack and settles nothing by itself. */
  const holding = (got: Got[], name: string): EventCallback => (event, ack) => {
    got.push({ callback: name, n: (event.data as { n: number }).n, attempt: event.deliveryAttempt!, at: performance.now(), ack: ack! });
  };
  const claimOf = async (space: Namespace, topic: string) => {
    const all = await claims(space, topic, 'g');
    expect(all).toHaveLength(1);
    return all[0]!;
  };

  it('its event goes to another callback of the same process as attempt 2 after the timeout; its late ack is refused and changes nothing', async () => {
    const TIMEOUT_MS = 1500;
    const space = etcd.namespace();
    const pubsub = etcd.pubsub(space, { inFlightTimeoutMs: TIMEOUT_MS });
    const got: Got[] = [];
    await pubsub.subscribe('hung', holding(got, 'a'), { group: 'g' });
    await pubsub.subscribe('hung', holding(got, 'b'), { group: 'g' });
    await pubsub.publish('hung', job(1));

    const second = await waitFor('attempt 2', () => got.find((g) => g.attempt === 2), { timeoutMs: TIMEOUT_MS + 5000 });
    const first = got.find((g) => g.attempt === 1)!;
    expect(second.callback).not.toBe(first.callback);
    expect(second.at - first.at).toBeGreaterThanOrEqual(TIMEOUT_MS - 5); // timers may fire a few ms early
    expect(second.at - first.at).toBeLessThan(TIMEOUT_MS + 2000); // one claim transaction; + a busy machine

    // The hung handler wakes up: its ack is refused (attempt 2 holds the event) and changes nothing.
    await expect(first.ack()).rejects.toMatchObject({ code: 'ELEASE_ACK_REFUSED', reason: 'timed-out' });
    await pubsub.flush();
    expect(await claimOf(space, 'hung')).toMatchObject({ s: 'held', a: 2 });
    await second.ack();
    await pubsub.flush();
    expect(await claimOf(space, 'hung')).toMatchObject({ s: 'done', a: 2 });
    expect(got.map((g) => g.attempt)).toEqual([1, 2]);
  });

  it('with one callback, the event goes back to it after each timeout, up to maxDeliveryAttempts, then is dropped', async () => {
    const TIMEOUT_MS = 800;
    const space = etcd.namespace();
    const warnings: string[] = [];
    const pubsub = etcd.pubsub(space, { inFlightTimeoutMs: TIMEOUT_MS, maxDeliveryAttempts: 3, logger: { warn: (m) => warnings.push(m) } });
    const got: Got[] = [];
    await pubsub.subscribe('alone', holding(got, 'only'), { group: 'g' });
    await pubsub.publish('alone', job(1));

    await waitFor('the event dropped after attempt 3', async () => (await claims(space, 'alone', 'g'))[0]?.dropped === true, { timeoutMs: 3 * TIMEOUT_MS + 10_000, intervalMs: 50 });
    expect(await claimOf(space, 'alone')).toMatchObject({ s: 'done', a: 3, dropped: true });
    expect(got.map((g) => g.attempt)).toEqual([1, 2, 3]);
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(warnings.some((w) => w.includes('dropped after its last delivery attempt'))).toBe(true);
  });

  it('across two processes whose handlers all hang, each event alternates between them, attempts 1 to maxDeliveryAttempts, then is dropped', async () => {
    const TIMEOUT_MS = 1000;
    const space = etcd.namespace();
    const env = { IN_FLIGHT_TIMEOUT_MS: String(TIMEOUT_MS), MAX_DELIVERY_ATTEMPTS: '3', GROUP_MEMBER_TTL_MS: '30000' };
    const [a, b] = await etcd.processes(space, ['a', 'b'], env);
    await a!.subscribe('hang', { group: 'g', handling: 'hold' });
    await b!.subscribe('hang', { group: 'g', handling: 'hold' });
    expect((await a!.publish('hang', 10)).failed).toBe(0);

    // Far below the member TTL: only the in-flight timeout can move these events.
    await waitFor('every event dropped after attempt 3', async () => {
      const all = await claims(space, 'hang', 'g');
      return all.length === 10 && all.every((c) => c?.dropped === true);
    }, { timeoutMs: 3 * TIMEOUT_MS + 15_000, intervalMs: 100 });
    const all = () => [...a!.deliveries('hang'), ...b!.deliveries('hang')];
    await waitFor('every delivery reported', () => all().length >= 30, { timeoutMs: 5000 });
    expect(all()).toHaveLength(30);
    for (let n = 0; n < 10; n++) {
      const tries = all().filter((d) => d.n === n).sort((x, y) => x.attempt - y.attempt);
      expect(tries.map((d) => d.attempt)).toEqual([1, 2, 3]);
      for (let i = 1; i < 3; i++) {
        expect(tries[i]!.worker).not.toBe(tries[i - 1]!.worker);
        // 250 ms for the processes' clocks, whose origins were read at different times; + 3 s for a busy machine.
        expect(tries[i]!.at - tries[i - 1]!.at).toBeGreaterThan(TIMEOUT_MS - 250);
        expect(tries[i]!.at - tries[i - 1]!.at).toBeLessThan(TIMEOUT_MS + 3000);
      }
    }
  });
});

describe('group sync reads every member key', () => {
  it('a member joining a topic larger than its maxReplayBytes takes nothing from live members: no duplicate, preferred members unchanged', async () => {
    const space = etcd.namespace();
    const topicKeys = new EventKeys(space.eventPrefix);
    const [a, b] = [etcd.pubsub(space), etcd.pubsub(space)];
    const got: Record<string, Event[]> = { a: [], b: [], c: [] };
    // Events marked `hold` stay unacked: live members' claims, which nobody may take while they live.
    const member = (name: string): EventCallback => (event, ack) => {
      got[name]!.push(event);
      if ((event.data as { n: number }).n < 1000) void ack?.();
    };
    await a.subscribe('big', member('a'), { group: 'g' });
    await b.subscribe('big', member('b'), { group: 'g' });
    for (let n = 0; n < 60; n++) await a.publish('big', job(n, 1024));
    await waitFor('the filler events handled', () => got.a!.length + got.b!.length >= 60, { timeoutMs: 20_000 });
    await Promise.all([a.flush(), b.flush()]);
    for (let n = 1000; n < 1006; n++) await a.publish('big', job(n));
    await waitFor('the held events claimed', () => got.a!.length + got.b!.length >= 66, { timeoutMs: 20_000 });
    await Promise.all([a.flush(), b.flush()]);

    // The topic in the order a watch delivers it: the two member keys are its oldest entries. A read of the newest
    // maxReplayBytes leaves them (and three entries more) out, and keeps every held event and its claim.
    // (The group's backlog key is read on its own, whatever its size, as member keys and claims are: left out here.)
    const backlogs = topicKeys.backlogs('big');
    const underTopic = (await rawEtcd().getAll().prefix(topicKeys.topic('big')).exec()).kvs as unknown as KeyValue[];
    const topic = underTopic.filter((kv) => !kv.key.subarray(0, backlogs.length).equals(backlogs));
    topic.sort(byRevisionThenKey);
    const memberPrefix = topicKeys.member('big', 'g', '');
    expect(topic.slice(0, 2).every((kv) => kv.key.subarray(0, memberPrefix.length).equals(memberPrefix))).toBe(true);
    const size = (kvs: KeyValue[]) => kvs.reduce((sum, kv) => sum + kv.key.length + kv.value.length, 0);
    const maxReplayBytes = size(topic.slice(5));

    const c = etcd.pubsub(space, { maxReplayBytes });
    await c.subscribe('big', member('c'), { group: 'g' });
    for (let n = 100; n < 130; n++) await c.publish('big', job(n));
    await waitFor('the new events handled', () => [...got.a!, ...got.b!, ...got.c!].filter((e) => (e.data as { n: number }).n >= 100 && (e.data as { n: number }).n < 1000).length >= 30, { timeoutMs: 20_000 });
    await Promise.all([a.flush(), b.flush(), c.flush()]);

    // Nothing was delivered twice or taken over: every delivery is a first attempt, the held events only ever went to
    // their holders, and their claims are still those holders' first attempts.
    const everything = [...got.a!, ...got.b!, ...got.c!];
    expect(everything.filter((e) => e.deliveryAttempt !== 1)).toEqual([]);
    expect(new Set(everything.map((e) => e.id)).size).toBe(everything.length);
    expect(numbers(got.c!).filter((n) => n >= 1000)).toEqual([]);
    const allClaims = await rawEtcd().getAll().prefix(topicKeys.claim('big', 'g', '')).exec();
    const held = allClaims.kvs.map((kv) => decodeClaim(kv.value)!).filter((claim) => claim.s === 'held');
    expect(held).toHaveLength(6);
    expect(held.every((claim) => claim.a === 1)).toBe(true);

    // Each new event was claimed by its preferred member among all three: the joiner saw both live members.
    const joined = ((await members(space, 'big', 'g')) as unknown as KeyValue[]).sort((x, y) => Number(BigInt(x.create_revision) - BigInt(y.create_revision)));
    const ids = joined.map((kv) => kv.key.toString().slice(memberPrefix.length));
    expect(ids).toHaveLength(3);
    const joinedAt = BigInt(joined[2]!.create_revision);
    const events = (await rawEtcd().getAll().prefix(topicKeys.events('big')).exec()).kvs.filter((kv) => BigInt(kv.create_revision) > joinedAt);
    expect(events).toHaveLength(30);
    const claimOf = new Map(allClaims.kvs.map((kv) => [kv.key.toString().split('/').pop()!, decodeClaim(kv.value)!]));
    for (const event of events) {
      const id = event.key.toString().split('/').pop()!;
      expect(claimOf.get(id)?.m).toBe(preferredMember(ids, id));
    }
  });
});
