/**
 * A member that hangs under a subscriber's watch stream (SIGSTOP: its sockets stay open, nothing answers) costs that
 * subscriber at most 3 s of delivery: events published through the other members meanwhile arrive within 3 s of
 * their commit, each once, in order. Which member carries the stream is read from etcd itself: each member's count of
 * open watch streams (`etcd_debugging_mvcc_watch_stream_total`).
 */
import type { Event } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { waitFor } from '../support/wait.js';
import { memberMetric } from './support/member-metrics.js';
import { usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

/** The bound the subscriber must keep: from an event's commit (its publish resolving) to its delivery. */
const BOUND_MS = 3000;

const watchStreams = () => memberMetric(etcd.cluster, 'etcd_debugging_mvcc_watch_stream_total');

describe('a member hung under a subscriber’s watch stream', () => {
  it.each(['a follower', 'the leader'] as const)('costs at most 3 s of delivery when it is %s, and nothing is lost or doubled', async (role) => {
    const space = etcd.namespace();
    const endpoints = etcd.cluster.endpoints();
    const before = await watchStreams();
    const subscriber = etcd.pubsub(space);
    const deliveredAt = new Map<number, number>();
    const order: number[] = [];
    await subscriber.subscribe('hung', (e: Event, ack) => {
      const n = (e.data as { n: number }).n;
      order.push(n);
      if (!deliveredAt.has(n)) deliveredAt.set(n, performance.now());
      void ack?.();
    });
    const carrier = await waitFor('the member carrying the subscriber’s stream', async () => {
      const now = await watchStreams();
      const i = now.findIndex((count, j) => count > before[j]!);
      return i < 0 ? undefined : i;
    }, { timeoutMs: 10_000 });
    const others = [0, 1, 2].filter((i) => i !== carrier);
    if (role === 'a follower') await etcd.cluster.moveLeader(others[0]!);
    else await etcd.cluster.moveLeader(carrier);
    // Published through the other members only: a publish never waits on the hung one.
    const publisher = etcd.pubsub(space, { hosts: others.map((i) => endpoints[i]!) });
    const committedAt = new Map<number, number>();
    let n = 0;
    const publish = async () => {
      const k = n++;
      await publisher.publish('hung', { type: 't', runId: 'r', data: { n: k } });
      committedAt.set(k, performance.now());
    };
    for (let k = 0; k < 5; k++) await publish();
    await waitFor('the events before the hang', () => deliveredAt.size === 5, { timeoutMs: 10_000 });

    await etcd.cluster.pause(carrier);
    let paused = true;
    try {
      // One event every 50 ms for 6 s: the hang is found and left behind well inside that.
      const until = performance.now() + 6000;
      while (performance.now() < until) {
        await publish();
        await new Promise((r) => setTimeout(r, 50));
      }
      await waitFor(`all ${n} events`, () => deliveredAt.size === n, { timeoutMs: 30_000 });
    } finally {
      if (paused) await etcd.cluster.resume(carrier);
      paused = false;
    }

    const delays = [...committedAt].map(([k, at]) => deliveredAt.get(k)! - at).sort((a, b) => a - b);
    const over1s = delays.filter((d) => d > 1000).length;
    console.log(`hung ${role}: ${n} events, delay p50 ${delays[delays.length >> 1]!.toFixed(0)} ms, max ${delays.at(-1)!.toFixed(0)} ms, ${over1s} over 1 s`);
    expect(order).toEqual([...Array(n).keys()]);
    expect(delays.at(-1)!).toBeLessThan(BOUND_MS);
  }, 90_000);
});
