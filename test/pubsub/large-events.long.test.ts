/**
 * Large events through a catch-up, on a real 3-member cluster. A subscriber's link to its member is cut (held: new
 * connections refused, the open one reset once the subscriber gives up on a request held in it) while more than
 * 4 MiB of events are published through the other members. After heal the subscriber resumes its watches from where
 * they stopped, and etcd answers each with the whole backlog in one response — over gRPC's default 4 MiB receive
 * limit. One subscriber holds a fan-out and a consumer-group subscription on the topic; both must get every event.
 *
 * Each frame-limit defence runs on its own as well (through the event bus's test seam, EventBusInternals), and the
 * control runs without any of them — the behaviour before they existed: the watch is resumed again and again, each
 * time answered with the same oversize response, and nothing arrives. On etcd 3.5: ETCD_BIN=<etcd 3.5> before the
 * command.
 */
import type { Event, EventCallback } from '@mastra/core/events';
import { Etcd3 } from 'etcd3';
import { describe, expect, it } from 'vitest';

import type { LeaseLogger } from '../../src/config/options.js';
import { EtcdCore } from '../../src/core/etcd-core.js';
import { EtcdSizeLimitError } from '../../src/errors/size-limit.js';
import { PUBSUB_METRIC } from '../../src/metrics/instruments.js';
import { EtcdEventBus } from '../../src/pubsub/etcd-event-bus.js';
import { resolveEventOptions } from '../../src/pubsub/resolve-options.js';
import type { WatchStreamTuning } from '../../src/pubsub/watch/watch-stream.js';
import { recordingMeterProvider } from '../support/recording-meter-provider.js';
import { waitFor } from '../support/wait.js';
import { collector, usePubSubCluster, type Namespace } from './support/pubsub-fixture.js';

const etcd = usePubSubCluster();

/** The member the subscriber talks to (and only to): its link is the one cut. */
const MEMBER = 0;
/** Stalled-stream check of the subscriber: its read, held by the cut, is what the cut link resets. */
const CHECK_MS = 1000;
/** 16 events of 400 KiB: 6.5 MB of backlog. */
const EVENTS = 16;
const PAD = 'x'.repeat(400 * 1024);
const GRPC_DEFAULT_RECEIVE_LIMIT = 4 * 1024 * 1024;

interface Subscriber {
  subscribe(topic: string, cb: EventCallback, options?: { group?: string }): Promise<void>;
  close(): Promise<void>;
}

/** What a subscriber reports: warnings and metrics. */
function observed() {
  const warnings: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
  const logger: LeaseLogger = { warn: (message, fields) => warnings.push({ message, fields }) };
  const metrics = recordingMeterProvider();
  const resumes = (reason: string) =>
    metrics.records.filter((r) => r.name === PUBSUB_METRIC.watchResumes && r.attributes?.reason === reason).reduce((n, r) => n + r.value, 0);
  const oversizeErrors = () => warnings.map((w) => w.fields?.error).filter((e): e is EtcdSizeLimitError => e instanceof EtcdSizeLimitError);
  return { logger, meterProvider: metrics.provider, resumes, oversizeErrors };
}
type Observed = ReturnType<typeof observed>;

/**
 * An event bus on an `EtcdCore` of its own, with the watch stream's defences as `watch` says. `client`: the package's
 * own etcd client (receive limit raised), or a plain etcd3 client with gRPC's default 4 MiB, as a caller may pass.
 */
function bus(space: Namespace, seen: Observed, client: 'own' | 'plain', watch: WatchStreamTuning): Subscriber {
  const hosts = [etcd.cluster.endpoint(MEMBER)];
  const plain = client === 'plain' ? new Etcd3({ hosts }) : undefined;
  const core = new EtcdCore(plain ? { client: plain, prefix: space.prefix, logger: seen.logger } : { hosts, prefix: space.prefix, logger: seen.logger });
  const events = resolveEventOptions({ eventPrefix: space.eventPrefix, watchCheckMs: CHECK_MS }, space.prefix);
  const eventBus = new EtcdEventBus(core, events, seen.meterProvider, { watch });
  return {
    subscribe: (topic, cb, options) => eventBus.subscribe(topic, cb, options),
    close: async () => {
      await eventBus.close();
      core.close(new Error('test over'));
      plain?.close();
    },
  };
}

/**
 * Subscribes `subscriber` (fan-out and group 'workers' on topic 'big'), cuts its member's client link, publishes the
 * backlog through the other members, holds the cut until the subscriber has lost its stream, and heals it. The two
 * collectors fill from there on.
 */
async function cutOffWhileBacklogIsPublished(space: Namespace, subscriber: Subscriber, seen: Observed) {
  const publisher = etcd.pubsub(space, { hosts: etcd.cluster.endpoints().filter((_, i) => i !== MEMBER) });
  const fanout = collector();
  const group = collector();
  await subscriber.subscribe('big', fanout.cb);
  await subscriber.subscribe('big', group.cb, { group: 'workers' });
  await etcd.cluster.cutClient(MEMBER);
  try {
    await Promise.all(Array.from({ length: EVENTS }, (_, n) => publisher.publish('big', { type: 'big', runId: 'r', data: { n, pad: PAD } })));
    // Held until the subscriber gave up on a held request (its stall check's read) and the cut link reset the
    // connection: its stream is gone, and nothing reaches it until heal — whenever during the publishing that was.
    await waitFor('the subscriber to lose its stream', () => seen.resumes('reconnect') >= 1, { timeoutMs: 3 * CHECK_MS + 5000 });
  } finally {
    await etcd.cluster.heal(MEMBER);
  }
  return { fanout, group, resumedBeforeHeal: seen.resumes('reconnect') };
}

const ns = (events: Event[]) => events.map((e) => (e.data as { n: number }).n);
const all = [...Array(EVENTS).keys()];

describe('large events', () => {
  /** Each way a subscriber can get the backlog, and what it must report on the way. */
  const delivering: Array<{ name: string; make: (space: Namespace, seen: Observed) => Subscriber; hitsLimit: boolean }> = [
    {
      name: 'EtcdPubSub as built (fragmented watch responses, receive limit raised)',
      make: (space, seen) =>
        etcd.pubsub(space, { hosts: etcd.cluster.endpoint(MEMBER), watchCheckMs: CHECK_MS, logger: seen.logger, meterProvider: seen.meterProvider }),
      hitsLimit: false,
    },
    {
      name: 'fragmented watch responses alone, on a client with gRPC’s default 4 MiB limit',
      make: (space, seen) => bus(space, seen, 'plain', { fragment: true, resyncOversize: false }),
      hitsLimit: false,
    },
    {
      name: 'the raised receive limit alone, without fragments',
      make: (space, seen) => bus(space, seen, 'own', { fragment: false, resyncOversize: false }),
      hitsLimit: false,
    },
    {
      name: 'neither: the oversize catch-up fails loudly and the subscriptions re-read in pages',
      make: (space, seen) => bus(space, seen, 'plain', { fragment: false, resyncOversize: true }),
      hitsLimit: true,
    },
  ];

  it.each(delivering)('a fan-out and a group subscriber cut off while 6.5 MB of events are published get every event after heal: $name', async ({ make, hitsLimit }) => {
    const space = etcd.namespace();
    const seen = observed();
    const subscriber = make(space, seen);
    try {
      const { fanout, group } = await cutOffWhileBacklogIsPublished(space, subscriber, seen);
      await fanout.until(EVENTS, 30_000);
      await waitFor(`the group to deliver all ${EVENTS}`, () => all.every((n) => ns(group.events).includes(n)), { timeoutMs: 30_000 });
      expect(ns(fanout.events)).toEqual(all);
      if (hitsLimit) {
        // Loud: a typed error in a warning and a metric, once per oversize response, not a loop.
        const errors = seen.oversizeErrors();
        expect(errors.length).toBeGreaterThan(0);
        expect(errors[0]).toMatchObject({ code: 'ELEASE_TOO_LARGE', operation: 'watch', limit: 'grpc-message', limitBytes: GRPC_DEFAULT_RECEIVE_LIMIT });
        expect(errors[0]!.sizeBytes).toBeGreaterThan(GRPC_DEFAULT_RECEIVE_LIMIT);
        expect(seen.resumes('oversize')).toBe(errors.length);
        expect(errors.length).toBeLessThanOrEqual(3);
      } else {
        expect(seen.oversizeErrors()).toEqual([]);
        expect(seen.resumes('oversize')).toBe(0);
      }
    } finally {
      await subscriber.close();
    }
  });

  it('control: with gRPC’s default 4 MiB limit, no fragments and no re-read, the catch-up is asked for again and again and nothing arrives', async () => {
    const space = etcd.namespace();
    const seen = observed();
    const subscriber = bus(space, seen, 'plain', { fragment: false, resyncOversize: false });
    try {
      const { fanout, group, resumedBeforeHeal } = await cutOffWhileBacklogIsPublished(space, subscriber, seen);
      // The stream keeps resuming the same watches from the same revision; each time etcd sends the same response.
      await waitFor('the watch to be resumed 20 times after heal', () => seen.resumes('reconnect') >= resumedBeforeHeal + 20, { timeoutMs: 30_000 });
      expect(fanout.events).toEqual([]);
      expect(group.events).toEqual([]);
    } finally {
      await subscriber.close();
    }
  });
});
