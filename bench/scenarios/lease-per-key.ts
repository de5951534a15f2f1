import { CompareResult, CompareTarget } from 'etcd3';
import { BENCH_PREFIX, THREAD_TTL_MS, ownerToken, type Scenario } from './scenario.js';
import { forEachLimited } from '../infra/limited.js';

/**
 * The naive design the lease pool replaces: a LeaseGrant per key, then a Txn putting the key on it.
 * Two consensus rounds per acquire and one live etcd lease per held key.
 */
export function leasePerKey(callers: number): Scenario {
  return {
    id: `lease-per-key-${callers}`,
    label: 'LeaseGrant + Txn (lease per key)',
    family: 'lease-per-key',
    callers,
    prepare: async ({ etcd }, runId) => {
      const granted: string[] = [];
      return {
        op: async (caller, seq) => {
          const key = Buffer.from(`${BENCH_PREFIX}lpk/${runId}/${seq}`);
          const { ID } = await etcd.leaseClient.leaseGrant({ TTL: Math.ceil(THREAD_TTL_MS / 1000) });
          granted.push(ID);
          const res = await etcd.kv.txn({
            compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
            success: [{ request_put: { key, value: Buffer.from(ownerToken(caller)), lease: ID } }],
            failure: [],
          });
          return res.succeeded;
        },
        // Revoked outside the timed window: left to expire, thousands of leases would be revoked by
        // the leader in the middle of a later scenario's measurement.
        cleanup: () => forEachLimited(granted.splice(0), 32, (ID) => etcd.leaseClient.leaseRevoke({ ID }).then(() => {})),
      };
    },
  };
}
