// Entry point of the `etcd-lease-provider/mastra` subpath. Kept apart from the root entry
// because it needs `@mastra/core/events` at run time (`EtcdLeasedPubSub extends PubSub`),
// while the root entry only uses Mastra's types and so works without the optional peer.
export { withEtcdLeases } from './with-etcd-leases.js';
export { EtcdLeasedPubSub, type ClosableLeaseProvider } from './etcd-leased-pubsub.js';
export type { WithEtcdLeasesOptions, LeaseOperation } from './options.js';
export { EtcdPubSub } from './etcd-pubsub.js';
export type { EtcdPubSubOptions } from './etcd-pubsub-options.js';
export { streamPartsWriteBehind } from './etcd-pubsub-publish-modes.js';
export type { EtcdPubSubEventOptions, PublishMode, PublishedEvent } from '../pubsub/options.js';
export { EventTooLargeError } from '../errors/event-too-large.js';
export { EtcdOverloadedError } from '../errors/overloaded.js';
export { EtcdNoSpaceError } from '../errors/no-space.js';
export { PUBSUB_METRIC } from '../metrics/instruments.js';
