import type { Event, EventCallback } from '@mastra/core/events';
import { afterAll } from 'vitest';

import { EtcdPubSub } from '../../../src/mastra/etcd-pubsub.js';
import type { EtcdPubSubOptions } from '../../../src/mastra/etcd-pubsub-options.js';
import type { ClusterOptions } from '../../harness/cluster.js';
import { useEtcdCluster } from '../../support/etcd-fixture.js';
import { waitFor } from '../../support/wait.js';
import { startProcesses, type PubSubProcess } from './pubsub-fleet.js';

/**
 * One real cluster per test file, and EtcdPubSub instances (in this process, or in worker processes) on it, each
 * test with an event namespace of its own. Everything made through the fixture is closed or killed at the end.
 */
export function usePubSubCluster(options: ClusterOptions = {}) {
  const etcd = useEtcdCluster(options);
  const closers: Array<() => Promise<void>> = [];
  let spaces = 0;
  afterAll(async () => {
    await Promise.allSettled(closers.splice(0).map((close) => close()));
  });

  /** A fresh namespace: lease and event prefixes no other test uses. */
  const namespace = (): Namespace => {
    const base = `pubsub/${process.pid}/${++spaces}`;
    return { prefix: `${base}/lease/`, eventPrefix: `${base}/events/` };
  };

  return {
    get cluster() {
      return etcd.cluster;
    },
    rawClient: () => etcd.rawClient(),
    namespace,
    pubsub(space: Namespace = namespace(), extra: Partial<EtcdPubSubOptions> = {}): EtcdPubSub {
      const pubsub = new EtcdPubSub({ hosts: etcd.cluster.endpoints(), ...space, ...extra });
      closers.push(() => pubsub.close());
      return pubsub;
    },
    /** Worker processes with their own EtcdPubSub in `space`. */
    async processes(space: Namespace, ids: string[], env: Record<string, string> = {}): Promise<PubSubProcess[]> {
      const started = await startProcesses(
        { ETCD_ENDPOINTS: etcd.cluster.endpoints().join(','), LEASE_PREFIX: space.prefix, EVENT_PREFIX: space.eventPrefix, ...env },
        ...ids,
      );
      closers.push(async () => void (await Promise.all(started.map((p) => p.stop()))));
      return started;
    },
  };
}

export interface Namespace {
  prefix: string;
  eventPrefix: string;
}

/** A subscriber callback that records what it gets and acks it. */
export function collector() {
  const events: Event[] = [];
  const cb: EventCallback = (event, ack) => {
    events.push(event);
    void ack?.();
  };
  return { events, cb, until: (n: number, timeoutMs = 15_000) => waitFor(`${n} deliveries (have ${events.length})`, () => events.length >= n, { timeoutMs, intervalMs: 10 }) };
}
