/**
 * EtcdPubSub through etcd faults on a real 3-member cluster: a leader killed mid-stream, etcd unreachable, history
 * compacted past a cut-off subscriber. Subscribers recover on their own; nothing hangs.
 */
import { Etcd3 } from 'etcd3';
import { describe, expect, it } from 'vitest';

import { EtcdUnavailableError } from '../../src/errors/unavailable.js';
import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

const n = (e: { data: unknown }) => (e.data as { n: number }).n;

describe('faults', () => {
  it('a leader kill during a stream loses no event: every subscriber gets every published event once, in order', async () => {
    const space = etcd.namespace();
    const leader = await etcd.cluster.leader();
    // One subscriber talks only to the leader: its stream dies with it and must resume from its own revision.
    const [publisher, s1, s2] = await etcd.processes(space, ['publisher', 's1', 's2']);
    const [onLeader] = await etcd.processes(space, ['on-leader'], { ETCD_ENDPOINTS: etcd.cluster.endpoint(leader) });
    for (const s of [s1!, s2!, onLeader!]) await s.subscribe('stream');
    publisher!.startPublishing('stream', 400);
    await waitFor('the stream to be under way', () => s1!.deliveries('stream').length >= 100, { timeoutMs: 30_000 });
    await etcd.cluster.kill(leader);
    await waitFor('the stream to go on without the old leader', () => s1!.deliveries('stream').length >= 200, { timeoutMs: 30_000 });
    await etcd.cluster.restart(leader);
    const published = await publisher!.published('stream');

    // A publish that failed may or may not have committed; every one that succeeded must arrive.
    const expected = 400 - published.failed;
    for (const s of [s1!, s2!, onLeader!]) {
      await waitFor(`${s.id} to catch up`, () => s.deliveries('stream').length >= expected, { timeoutMs: 30_000 });
      const ns = s.deliveries('stream').map((d) => d.n);
      expect(new Set(ns).size).toBe(ns.length);
      expect([...ns].sort((x, y) => x - y)).toEqual(ns);
    }
    expect(published.failed).toBe(0);
  });

  it('with etcd unreachable, publish rejects with EtcdUnavailableError within its deadline; subscribers recover by themselves', async () => {
    const space = etcd.namespace();
    const publisher = etcd.pubsub(space, { deadlineMs: 2000 });
    const subscriber = etcd.pubsub(space);
    const got = collector();
    await subscriber.subscribe('outage', got.cb);
    await publisher.publish('outage', { type: 't', runId: 'r', data: { n: 0 } });
    await got.until(1);

    for (const i of [0, 1, 2]) await etcd.cluster.blackhole(i);
    let healed = false;
    try {
      const startedAt = performance.now();
      const error = await publisher.publish('outage', { type: 't', runId: 'r', data: { n: -1 } }).catch((e: unknown) => e);
      const tookMs = performance.now() - startedAt;
      expect(error).toBeInstanceOf(EtcdUnavailableError);
      expect(tookMs).toBeLessThan(2000 + 500 + 500);
    } finally {
      for (const i of [0, 1, 2]) await etcd.cluster.heal(i);
      healed = true;
    }
    expect(healed).toBe(true);
    await etcd.cluster.waitHealthy();
    for (let k = 1; k <= 5; k++) await publisher.publish('outage', { type: 't', runId: 'r', data: { n: k } });
    await waitFor('the events published after recovery', () => [1, 2, 3, 4, 5].every((k) => got.events.some((e) => n(e) === k)), { timeoutMs: 30_000 });
    const after = got.events.map(n).filter((k) => k >= 0);
    expect(new Set(after).size).toBe(after.length);
  });

  it('a subscriber whose stream member is cut off resumes on another member within 3 × watchCheckMs + 2 s, without a gap', async () => {
    const CHECK_MS = 500;
    const space = etcd.namespace();
    const endpoints = etcd.cluster.endpoints();
    // Only the member's client link is cut (its peers keep it in the cluster: no election), and each event is
    // published through the other members, so a publish is never slowed by the cut — a slow publish would give the
    // subscriber time to resume before the event commits, and the stream's member could not be told apart.
    const publishers = [0, 1, 2].map((cut) => etcd.pubsub(space, { hosts: endpoints.filter((_, i) => i !== cut) }));
    const subscriber = etcd.pubsub(space, { watchCheckMs: CHECK_MS });
    const got = collector();
    await subscriber.subscribe('stalled', got.cb);
    let k = 0;
    const publish = (avoiding = 0) => publishers[avoiding]!.publish('stalled', { type: 't', runId: 'r', data: { n: k++ } });
    await publish();
    await got.until(1);
    // The client chose the stream's member itself: cut members off one at a time until an event committed
    // meanwhile does not arrive — that member carries the stream.
    let resumedAfterMs: number | undefined;
    for (const member of [0, 1, 2]) {
      await etcd.cluster.cutClient(member);
      try {
        await publish(member);
        const committedAt = performance.now();
        const arrived = await waitFor('the event', () => got.events.length === k, { timeoutMs: 300, intervalMs: 5 }).then(() => true, () => false);
        if (arrived) continue;
        await got.until(k, 3 * CHECK_MS + 5000);
        resumedAfterMs = performance.now() - committedAt;
        break;
      } finally {
        await etcd.cluster.heal(member);
      }
    }
    expect(resumedAfterMs).toBeDefined();
    // From the commit of an event the silent stream does not bring: two missed checks after the one in flight,
    // then a reconnect; 2 s more for a busy 2-core machine.
    expect(resumedAfterMs!).toBeLessThan(3 * CHECK_MS + 2000);
    await publish();
    await got.until(k);
    expect(got.events.map(n)).toEqual([...Array(k).keys()]);
  });

  it('subscribers whose resume point was compacted away re-read the topic and get every retained event once', async () => {
    const space = etcd.namespace();
    const endpoints = etcd.cluster.endpoints();
    const publisher = etcd.pubsub(space, { hosts: [endpoints[1]!, endpoints[2]!] });
    const warnings: string[] = [];
    // The subscriber talks only to member 0.
    const subscriber = new EtcdPubSub({ hosts: endpoints[0]!, ...space, logger: { warn: (m) => warnings.push(m) } });
    try {
      const got = collector();
      await subscriber.subscribe('compacted', got.cb);
      for (let k = 0; k < 10; k++) await publisher.publish('compacted', { type: 't', runId: 'r', data: { n: k } });
      await got.until(10);
      // A second subscriber of the topic in the same process, on the same watch, from here on.
      const late = collector();
      await subscriber.subscribe('compacted', late.cb, { startFrom: 'latest' });

      // Member 0 stays in the quorum but its answers to clients are dropped: the subscriber hears nothing while
      // events are published and the history is compacted past its cursor. Turning it off resets its
      // connections, so the subscriber resumes from a compacted revision.
      await etcd.cluster.dropResponses(0, true);
      try {
        for (let k = 10; k < 30; k++) await publisher.publish('compacted', { type: 't', runId: 'r', data: { n: k } });
        // Through members 1 and 2 only: a request member 0 answers would never come back.
        const raw = new Etcd3({ hosts: [endpoints[1]!, endpoints[2]!] });
        try {
          const head = (await raw.kv.range({ key: Buffer.from('x') })).header.revision;
          await raw.kv.compact({ revision: head, physical: true });
        } finally {
          raw.close();
        }
      } finally {
        await etcd.cluster.dropResponses(0, false);
      }
      await got.until(30, 30_000);
      await late.until(20, 30_000);
      expect(got.events.map(n)).toEqual([...Array(30).keys()]);
      expect(late.events.map(n)).toEqual([...Array(20).keys()].map((k) => k + 10));
      expect(warnings.some((w) => w.includes('compacted past a subscriber'))).toBe(true);
    } finally {
      await subscriber.close();
    }
  });

  it('close leaves no watch, keep-alive or timer behind: a process that closed its EtcdPubSub exits by itself', async () => {
    const { spawn } = await import('node:child_process');
    const script = new URL('./fixtures/exits-after-close.ts', import.meta.url).pathname;
    const space = etcd.namespace();
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, ETCD_ENDPOINTS: etcd.cluster.endpoints().join(','), LEASE_PREFIX: space.prefix, EVENT_PREFIX: space.eventPrefix },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the process to close its pubsub', () => output.includes('closed'), { timeoutMs: 30_000 });
      const closedAt = performance.now();
      expect(await exit).toBe(0);
      expect(performance.now() - closedAt).toBeLessThan(3000);
    } finally {
      child.kill('SIGKILL');
    }
    expect(output).toContain('delivered fan-out and group');
  });
});
