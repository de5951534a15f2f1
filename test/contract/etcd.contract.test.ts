import { useEtcdCluster } from '../support/etcd-fixture.js';
import { leaseContract } from './lease-contract.js';

const etcd = useEtcdCluster();

// ttlMs 2500: above etcd's 2 s minimum lease TTL, so the TTL is honoured as given.
// expirySlackMs: one pool bucket (1 s) + whole-second rounding (1 s) + the leader's expiry sweep (≤ 0.5 s),
// plus scheduling margin on a loaded 2-core machine — the bound documented in the README.
leaseContract('EtcdLeaseProvider (3-member etcd)', {
  provider: async () => etcd.provider(),
  ttlMs: 2500,
  expirySlackMs: 3000,
});
