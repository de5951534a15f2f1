import { inspect, type InspectOptionsStylized } from 'node:util';

import { describeSettings } from '../config/redact.js';
import { resolveOptions } from '../config/resolve-options.js';
import { EtcdCore } from '../core/etcd-core.js';
import { ProviderClosedError } from '../errors/closed.js';
import { createLeaseProvider, type EtcdLeaseProvider } from '../provider.js';
import { EtcdEventBus } from '../pubsub/etcd-event-bus.js';
import { resolveEventOptions } from '../pubsub/resolve-options.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';
import { EventBusPubSub } from './event-bus-pubsub.js';
import type { EtcdPubSubOptions } from './etcd-pubsub-options.js';

/**
 * A complete Mastra event transport and lease provider on etcd:
 * `new Mastra({ agents, pubsub: new EtcdPubSub({ hosts }) })` is all a multi-pod deployment needs.
 *
 * Events: every process's subscribers get every event of a topic (fan-out), a consumer group delivers each event to
 * one live member across processes and redelivers a dead member's events, `startFrom: 'earliest'` replays the
 * retained window, `localOnly` events never leave the process (docs/design.md, "Events (EtcdPubSub)").
 * Leases: the five lease methods (with run metadata and `getLeaseRecord`), `getLeaseProvider()` and the error
 * policy are `withEtcdLeases`'s — this is a `PubSubWithLeases` whose event pubsub and lease provider share one etcd
 * client and one group committer, so lease renewals and events ride the same consensus rounds.
 */
export class EtcdPubSub extends PubSubWithLeases {
  /**
   * Deletes one run's events of a topic; with `producedBefore`, only its unpinned events produced at or before it
   * (Mastra's newer PubSub member). Never rejects. Handed through from the event side at construction.
   */
  declare readonly trimTopic: (topic: string, options: { runId: string; producedBefore?: number }) => Promise<void>;
  private readonly core: EtcdCore;
  private readonly description: Record<string, unknown>;
  private shutdown: Promise<void> | undefined;

  constructor(options: EtcdPubSubOptions) {
    // Everything is validated before anything is built: a bad event option leaves no client behind.
    const resolved = resolveOptions(options);
    const events = resolveEventOptions(options, resolved.prefix);
    const core = new EtcdCore(options);
    let provider: EtcdLeaseProvider;
    let bus: EtcdEventBus;
    try {
      provider = createLeaseProvider(options, { core, closedAs: 'EtcdPubSub' });
      bus = new EtcdEventBus(core, events, options.meterProvider);
    } catch (error) {
      core.close(new ProviderClosedError('construct', 'EtcdPubSub'));
      throw error;
    }
    const { onAcquireError, onLeaseError, lastKnownOwnerMaxAgeMs } = options;
    try {
      super(new EventBusPubSub(bus, core.options.logger), provider, { onAcquireError, onLeaseError, lastKnownOwnerMaxAgeMs });
    } catch (error) {
      void bus.close();
      core.close(new ProviderClosedError('construct', 'EtcdPubSub'));
      throw error;
    }
    this.core = core;
    this.description = { ...describeSettings(resolved, options), eventPrefix: events.eventPrefix, retentionMs: events.retentionMs };
  }

  /** `util.inspect` / `console.log`: settings only — never the password, the private key or client internals. */
  [inspect.custom](_depth: number, options: InspectOptionsStylized, inspectFn: typeof inspect): string {
    return `EtcdPubSub ${inspectFn(this.toJSON(), options)}`;
  }

  toJSON(): Record<string, unknown> {
    return { ...this.description, closed: this.shutdown !== undefined };
  }

  /**
   * Events stop first (pending publishes flushed within `deadlineMs`, group memberships revoked, the watch stream
   * ended), then the leases, then the etcd client if this object created it. Idempotent. Mastra's `shutdown()` does
   * not call it: call it after.
   */
  override close(): Promise<void> {
    this.shutdown ??= super.close().finally(() => this.core.close(new ProviderClosedError('call in flight', 'EtcdPubSub')));
    return this.shutdown;
  }
}
