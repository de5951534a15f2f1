// Entry point of the `etcd-lease-provider/mastra` subpath. Kept apart from the root entry
// because it needs `@mastra/core/events` at run time (`PubSubWithLeases extends PubSub`),
// while the root entry neither loads nor names `@mastra/core` (its types included), so it works without the
// optional peer.
export { withEtcdLeases } from './with-etcd-leases.js';
export { PubSubWithLeases, type ClosableLeaseProvider } from './pubsub-with-leases.js';
export type { WithEtcdLeasesOptions, LeaseOperation } from './options.js';
export { EtcdPubSub } from './etcd-pubsub.js';
export type { EtcdPubSubOptions } from './etcd-pubsub-options.js';
export { streamPartsWriteBehind } from './etcd-pubsub-publish-modes.js';
export type { EtcdPubSubEventOptions, PublishMode, PublishedEvent } from '../pubsub/options.js';
// Every error class, from the root entry's own exports: the build shares one module between both entries, so an error
// raised here is `instanceof` the class imported from `etcd-lease-provider`, and the other way round.
export {
  LeaseError,
  isLeaseError,
  LeaseArgumentTypeError,
  LeaseArgumentRangeError,
  EtcdUnavailableError,
  LeaseAbortedError,
  ProviderClosedError,
  EtcdAuthenticationError,
  EtcdPermissionError,
  EtcdTlsError,
  LeaseWaitTimeoutError,
  LeaseLostError,
  EtcdRequestRejectedError,
  EtcdSizeLimitError,
  EtcdCompactedError,
  EventTooLargeError,
  AckRefusedError,
  EtcdOverloadedError,
  EtcdNoSpaceError,
  type LeaseErrorCode,
  type LeaseLossReason,
  type AckRefusedReason,
  type SizeLimit,
} from '../index.js';
export { PUBSUB_METRIC } from '../metrics/instruments.js';
