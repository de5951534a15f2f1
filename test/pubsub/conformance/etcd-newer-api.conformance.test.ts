import { afterEach, describe } from 'vitest';

import { etcdSubject } from './etcd-subject.js';
import { newerApiCases } from './newer-api-cases.js';
import { usePubSubCluster } from '../support/pubsub-fixture.js';

// The members Mastra's PubSub gained after 1.71, on EtcdPubSub: a file of their own, so that the rest of the suite
// does not wait on them. Mastra 1.71's EventEmitterPubSub, the suite's other subject, has none of them.
const subject = etcdSubject(usePubSubCluster());
describe(`PubSub conformance, members newer than Mastra 1.71: ${subject.name}`, () => {
  afterEach(() => subject.cleanup());
  newerApiCases(subject);
});
