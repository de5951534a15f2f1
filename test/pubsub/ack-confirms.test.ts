/**
 * A consumer group's ack is a promise about etcd: once `ack()` resolves, the group has finished the event and no
 * member is handed it again. Found by the event chaos run (seed 396449252): a member's ack resolved after its first
 * write had failed, the member's process was killed before the background retry landed, and another member was
 * handed the event as attempt 2, 7.5 s after the ack had resolved.
 */
import type { Event } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { ProviderClosedError } from '../../src/errors/closed.js';
import { waitFor } from '../support/wait.js';
import { usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

interface Handed {
  readonly member: 'a' | 'b';
  readonly attempt: number;
  readonly ack: () => Promise<void>;
}

describe('an ack resolves only once etcd has it', () => {
  it('a member stopped while its ack is unwritten: the ack rejects, and the event goes to the other member as the next attempt', async () => {
    const space = etcd.namespace();
    // Short deadlines so the ack's first write runs out while etcd is out of reach; a short session so the stopped
    // member's claim moves soon after.
    const options = { groupMemberTtlMs: 2000, deadlineMs: 1500 };
    const members = { a: etcd.pubsub(space, options), b: etcd.pubsub(space, options) };
    const handed: Handed[] = [];
    // Handlers keep the event: the test acks it.
    const handler = (member: 'a' | 'b') => (event: Event, ack?: () => Promise<void>) => void handed.push({ member, attempt: event.deliveryAttempt ?? 1, ack: ack! });
    await members.a.subscribe('work', handler('a'), { group: 'workers' });
    await members.b.subscribe('work', handler('b'), { group: 'workers' });
    await members.a.publish('work', { type: 't', runId: 'r', data: {} });
    const first = await waitFor('the event handed to one member', () => handed[0], { timeoutMs: 15_000 });

    let ack: 'pending' | 'resolved' | 'rejected' = 'pending';
    let rejection: unknown;
    for (const i of [0, 1, 2]) await etcd.cluster.blackhole(i);
    try {
      void first.ack().then(
        () => (ack = 'resolved'),
        (error: unknown) => ((ack = 'rejected'), (rejection = error)),
      );
      // The holder stops (a pod shut down, or killed) before etcd could take its ack.
      await members[first.member].close();
      await waitFor('the ack to resolve or reject once its member stopped', () => ack !== 'pending', { timeoutMs: 10_000 });
    } finally {
      for (const i of [0, 1, 2]) await etcd.cluster.heal(i);
    }
    const other = first.member === 'a' ? 'b' : 'a';
    const again = await waitFor('the other member to be handed the event', () => handed.find((h) => h.member === other), { timeoutMs: 30_000 });

    expect(again.attempt).toBe(2);
    // Before: 'resolved' — the ack said the event was finished, and the group handed it out again.
    expect(ack).toBe('rejected');
    expect(rejection).toBeInstanceOf(ProviderClosedError);
    await again.ack();
  });

});
