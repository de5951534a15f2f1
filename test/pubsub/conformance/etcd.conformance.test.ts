import { pubsubConformance } from './conformance.js';
import { etcdSubject } from './etcd-subject.js';
import { usePubSubCluster } from '../support/pubsub-fixture.js';

pubsubConformance(etcdSubject(usePubSubCluster()));
