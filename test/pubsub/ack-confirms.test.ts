/**
 * A consumer group's ack is a promise about etcd: once `ack()` resolves, the group has finished the event and no
 * member is handed it again. Found by the event chaos run (seed 396449252): a member's ack resolved after its first
 * write had failed, the member's process was killed before the background retry landed, and another member was
 * handed the event as attempt 2, 7.5 s after the ack had resolved. And later (the composed-fault run, seed 3 in CI):
 * a member's session lapsed under the faults, another member took its event over as attempt 2, and the first member's
 * late ack — refused by etcd, the claim's revision had moved — resolved all the same.
 */
import type { Event } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { AckRefusedError } from '../../src/errors/ack-refused.js';
import { ProviderClosedError } from '../../src/errors/closed.js';
import { decodeClaim } from '../../src/pubsub/groups/claim-txns.js';
import { EventKeys } from '../../src/pubsub/keys/event-keys.js';
import type { EtcdPubSubOptions } from '../../src/mastra/etcd-pubsub-options.js';
import { waitFor } from '../support/wait.js';
import { usePubSubCluster } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

interface Handed {
  readonly member: 'a' | 'b';
  readonly attempt: number;
  readonly ack: () => Promise<void>;
}

/** Two members of group 'workers' on topic 'work', and one event handed to one of them, whose handler keeps it. */
async function groupHandedOne(options: Partial<EtcdPubSubOptions>) {
  const space = etcd.namespace();
  const members = { a: etcd.pubsub(space, options), b: etcd.pubsub(space, options) };
  const handed: Handed[] = [];
  const handler = (member: 'a' | 'b') => (event: Event, ack?: () => Promise<void>) => void handed.push({ member, attempt: event.deliveryAttempt ?? 1, ack: ack! });
  await members.a.subscribe('work', handler('a'), { group: 'workers' });
  await members.b.subscribe('work', handler('b'), { group: 'workers' });
  await members.a.publish('work', { type: 't', runId: 'r', data: {} });
  const first = await waitFor('the event handed to one member', () => handed[0], { timeoutMs: 15_000 });
  return { space, members, handed, first };
}

describe('an ack resolves only once etcd has it', () => {
  it('a member stopped while its ack is unwritten: the ack rejects, and the event goes to the other member as the next attempt', async () => {
    // Short deadlines so the ack's first write runs out while etcd is out of reach; a short session so the stopped
    // member's claim moves soon after.
    const { members, handed, first } = await groupHandedOne({ groupMemberTtlMs: 2000, deadlineMs: 1500 });

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

  it("a member whose claim was taken over while its handler ran: the late ack rejects with AckRefusedError, the taker's ack resolves", async () => {
    const { space, handed, first } = await groupHandedOne({});

    // The holder's session lapses while its handler runs (as etcd expires it under a long pause or a cut link): its
    // member key goes, and the other member takes the event over.
    const raw = etcd.rawClient();
    const keys = new EventKeys(space.eventPrefix);
    const [claim] = Object.values(await raw.getAll().prefix(keys.groupClaims('work', 'workers')).buffers());
    const holder = decodeClaim(claim!)!.m;
    const memberKey = await raw.get(keys.member('work', 'workers', holder).toString()).exec();
    await raw.leaseClient.leaseRevoke({ ID: memberKey.kvs[0]!.lease });
    const other = first.member === 'a' ? 'b' : 'a';
    const again = await waitFor('the other member to take the event over', () => handed.find((h) => h.member === other), { timeoutMs: 15_000 });
    expect(again.attempt).toBe(2);

    // Before: the late ack resolved — "finished" — while attempt 2 was being handled.
    const late = await first.ack().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    expect(late).toBeInstanceOf(AckRefusedError);
    expect(late).toMatchObject({ code: 'ELEASE_ACK_REFUSED', reason: 'taken-over', topic: 'work', group: 'workers' });
    await expect(again.ack()).resolves.toBeUndefined();
  });
});
