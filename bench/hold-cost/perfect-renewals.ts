import { Etcd3 } from 'etcd3';
import { ETCD_MAX_TXN_OPS, nestingCost } from '../../src/commit/batch-plan.js';
import { nested, put } from '../../src/operations/etcd-txn.js';
import { renewTxn } from '../../src/operations/renew.js';
import { POLICY } from '../../src/policy.js';
import { withTxnCodec } from '../../src/transport/wire/txn-codec.js';
import { BENCH_PREFIX, ownerToken } from '../scenarios/scenario.js';
import type { HoldDesign } from './designs.js';
import { RenewTally, RenewTimers } from './renew-timers.js';

/**
 * The provider's own renewal (src/operations/renew.ts), pinned to the key's last written version, moving it onto
 * `lease` — the same one each time here, so never onto a lease that ends earlier.
 */
const renewal = (key: Buffer, owner: Buffer, revision: string, lease: string) => renewTxn(key, owner, { revision, lease }, lease, false);
/** Sub-transactions per Txn: as many renewals as etcd's default --max-txn-ops admits, as the provider packs them. */
const BATCH = ETCD_MAX_TXN_OPS - 1 - nestingCost(renewal(Buffer.alloc(0), Buffer.alloc(0), '1', '1'));
/** Txns in flight at once: the provider's in-flight floor. */
const IN_FLIGHT = POLICY.commit.inFlight.min;

interface Waiting {
  i: number;
  resolve(ok: boolean): void;
  reject(error: unknown): void;
}

/**
 * The ceiling under any write-per-renewal design on this cluster: the provider's own renew transaction, sent with
 * nothing around it — no call runner, key lanes, tenure table, lease pool or waiting for company, one long lease for
 * every key (so no lease grants), the provider's Txn codec — in Txns of as many renewals as etcd admits (125), four in flight, each
 * leaving as soon as a slot is free. Renewals arrive on Mastra's cadence (a timer per key, every ttl/3), as for the
 * provider. Where this cannot hold a count, the members cannot commit the renewals it needs, whatever a client does.
 */
export const perfectRenewHold: HoldDesign = {
  id: 'perfect-renewals',
  label: 'raw Txn, perfect renewal batches',
  onEtcd: true,
  async hold({ hosts }, keys, ttlMs, runId) {
    const etcd = withTxnCodec(new Etcd3({ hosts }));
    const owner = Buffer.from(ownerToken(0));
    const keyOf = Array.from({ length: keys }, (_, i) => Buffer.from(`${BENCH_PREFIX}hold-perfect/${runId}/${i}`));
    const revisions: string[] = new Array(keys);
    // Outlives the hold: a lease that ran out would turn renewals into refusals and measure nothing.
    const { ID: lease } = await etcd.leaseClient.leaseGrant({ TTL: Math.max(600, Math.ceil((4 * ttlMs) / 1000)) });
    for (let from = 0; from < keys; from += BATCH) {
      const ids = Array.from({ length: Math.min(BATCH, keys - from) }, (_, j) => from + j);
      const res = await etcd.kv.txn({ compare: [], success: ids.map((i) => put(keyOf[i]!, owner, lease)), failure: [] });
      for (const i of ids) revisions[i] = String(res.header.revision);
    }
    const queue: Waiting[] = [];
    let inFlight = 0;
    let closed = false;
    const send = (): void => {
      while (!closed && inFlight < IN_FLIGHT && queue.length > 0) {
        const batch = queue.splice(0, BATCH);
        inFlight++;
        etcd.kv
          .txn({ compare: [], success: batch.map((w) => nested(renewal(keyOf[w.i]!, owner, revisions[w.i]!, lease))), failure: [] })
          .then(
            (res) => {
              const revision = String(res.header.revision);
              batch.forEach((w, j) => {
                const ok = (res.responses[j] as { response_txn?: { succeeded?: boolean } } | undefined)?.response_txn?.succeeded === true;
                if (ok) revisions[w.i] = revision;
                w.resolve(ok);
              });
            },
            (error: unknown) => batch.forEach((w) => w.reject(error)),
          )
          .finally(() => {
            inFlight--;
            send();
          });
      }
    };
    const tally = new RenewTally();
    const timers = new RenewTimers(
      ttlMs / 3,
      (i) =>
        new Promise<boolean>((resolve, reject) => {
          queue.push({ i, resolve, reject });
          send();
        }),
      tally,
    );
    for (let i = 0; i < keys; i++) timers.start(i);
    return {
      take: () => tally.take(),
      async stop() {
        await timers.stop();
        closed = true;
        for (const w of queue.splice(0)) w.resolve(false);
        etcd.close(); // the keys and the lease go with the cluster-wide revoke that follows every hold
      },
    };
  },
};
