import { useEtcdCluster } from '../support/etcd-fixture.js';
import { leaseContract, type ContractSubject } from './lease-contract.js';

const etcd = useEtcdCluster();

// ttlMs 2500: above etcd's 2 s minimum lease TTL, so the TTL is honoured as given.
// expirySlackMs, the late bound of docs/design.md#ttl: one pool bucket (1 s) + whole-second rounding (< 1 s) + the
// leader's expiry sweep (0.5 s) + the LeaseGrant's latency and scheduling on a loaded 2-core machine (0.5 s).
const subject = (metadata: boolean): ContractSubject => ({
  // Separate providers on one prefix: separate connections, lease pools and tenure tables, like separate processes.
  clients: async (count) => {
    const prefix = etcd.uniquePrefix();
    return Array.from({ length: count }, () => etcd.provider({ prefix }));
  },
  ttlMs: 2500,
  expirySlackMs: 3000,
  metadata,
});

leaseContract('EtcdLeaseProvider (3-member etcd)', subject(false));
leaseContract('EtcdLeaseProvider (3-member etcd)', subject(true));
