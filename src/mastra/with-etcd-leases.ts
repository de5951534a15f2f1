import { isLeaseProvider } from '@mastra/core/events';
import type { PubSub } from '@mastra/core/events';

import type { EtcdLeaseProviderOptions } from '../config/options.js';
import { EtcdLeaseProvider } from '../provider.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';
import type { ClosableLeaseProvider } from './pubsub-with-leases.js';
import type { WithEtcdLeasesOptions } from './options.js';

/**
 * Keep `pubsub` for event delivery and take leases from etcd:
 *
 * ```ts
 * const mastra = new Mastra({
 *   pubsub: withEtcdLeases(new UnixSocketPubSub(path), { hosts: process.env.ETCD_ENDPOINTS!.split(',') }),
 *   agents: { … },
 * });
 * ```
 *
 * `leases` is either `EtcdLeaseProvider` options (a provider is built from them, owned by the
 * returned pubsub and closed with it) or an existing lease provider (closed with the returned
 * pubsub unless `options.closeLeaseProvider` is `false`: the one-line setup should not leave an
 * etcd client running after `close()`, and sharing a provider is the rarer case that opts out).
 */
export function withEtcdLeases(
  pubsub: PubSub,
  leases: EtcdLeaseProviderOptions | ClosableLeaseProvider,
  options: WithEtcdLeasesOptions = {},
): PubSubWithLeases {
  if (isLeaseProvider(leases)) return new PubSubWithLeases(pubsub, leases, options);
  // Built here, so owned here: `closeLeaseProvider: false` cannot leak a client nobody else can reach. The annotation
  // is where the compiler checks that EtcdLeaseProvider is a Mastra `LeaseProvider` (the root entry cannot import it).
  const provider: ClosableLeaseProvider = new EtcdLeaseProvider(leases);
  return new PubSubWithLeases(pubsub, provider, { ...options, closeLeaseProvider: true });
}
