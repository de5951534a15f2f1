import type { EtcdLeaseProviderOptions } from '../config/options.js';
import type { EtcdPubSubEventOptions } from '../pubsub/options.js';
import type { WithEtcdLeasesOptions } from './options.js';

/**
 * Options of `new EtcdPubSub(options)`: the connection and lease options of `EtcdLeaseProvider` (`hosts` or
 * `client`, `prefix`, TLS, auth, deadlines, logger, metrics), the event options, and the Mastra-facing lease error
 * policy of `withEtcdLeases` (`onAcquireError`, `onLeaseError`, `lastKnownOwnerMaxAgeMs`). Validated once, in the constructor.
 */
export interface EtcdPubSubOptions
  extends EtcdLeaseProviderOptions,
    EtcdPubSubEventOptions,
    Pick<WithEtcdLeasesOptions, 'onAcquireError' | 'onLeaseError' | 'lastKnownOwnerMaxAgeMs'> {}
