import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdLeaseProvider } from '../../src/index.js';
import { POLICY } from '../../src/policy.js';
import { APP_PREFIX, APP_USER, ROOT_USER, enableAppAuth } from '../support/app-user.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { recordRequests, type RequestLog } from '../support/request-log.js';

// etcd refuses a request with InvalidArgument "revision of auth store is old" when the auth store changed (a role
// edited, a permission granted) between the member reading the request's auth revision and applying the request.
// Retrying fixes it. Only etcd's size limits on a transaction are a reason to send smaller batches: a committer that
// halved its batch on every InvalidArgument would, under steady auth edits, end at batches of one or two.
//
// To make the refusal certain rather than a rare race: commits are slow (the followers' links carry 400 ms each way),
// and each round sends an auth edit first and the lease calls 50 ms later. The calls read the old auth revision (the
// edit is not applied yet) but are proposed after the edit, so they are applied after it — and refused.
const etcd = useEtcdCluster();
const OLD_AUTH = 'revision of auth store is old';
const PEER_LATENCY_MS = 400;

let log: RequestLog;
let root: Etcd3;
let leader: number;

beforeAll(async () => {
  // The leader first: the harness asks each member for its status without credentials, which etcd 3.5 refuses
  // once auth is on (3.4 answers). Turning auth on elects no one.
  leader = await etcd.cluster.leader();
  await enableAppAuth(etcd.cluster.endpoints(), ['edited']);
  root = new Etcd3({ hosts: [etcd.cluster.endpoint(leader)], auth: ROOT_USER });
  log = recordRequests();
});

afterAll(async () => {
  log?.restore();
  root?.close();
  for (let i = 0; i < etcd.cluster.size; i++) await etcd.cluster.heal(i);
});

describe('a transient InvalidArgument', () => {
  it('"revision of auth store is old" is retried: every call succeeds and batches keep their size', async () => {
    const warnings: string[] = [];
    // An attempt floor above the slow commits (the floor-and-breaker problem of slow-commits.test.ts stays out).
    const p = new EtcdLeaseProvider({
      hosts: [etcd.cluster.endpoint(leader)],
      prefix: APP_PREFIX,
      auth: APP_USER,
      attemptTimeoutMs: 3000,
      logger: { warn: (message) => warnings.push(message) },
    });
    try {
      await p.acquireLease('warm-up', 'A', 30_000);
      await root.role('edited').grant({ permission: 'Read', range: root.range({ prefix: 'edit-0/' }) });
      for (let i = 0; i < etcd.cluster.size; i++) if (i !== leader) await etcd.cluster.setLatency(i, PEER_LATENCY_MS);
      log.clear();
      const refused = () => log.txns.filter((t) => t.outcome?.includes(OLD_AUTH)).length;
      for (let round = 1; round <= 4; round++) {
        const edit = root.role('edited').grant({ permission: 'Read', range: root.range({ prefix: `edit-${round}/` }) });
        await new Promise((r) => setTimeout(r, 50));
        const results = await Promise.all(Array.from({ length: 32 }, (_, i) => p.acquireLease(`r${round}-${i}`, 'A', 30_000)));
        for (const r of results) expect(r).toMatchObject({ acquired: true });
        await edit;
      }
      console.info(`auth edits: ${refused()} Txn(s) refused as "${OLD_AUTH}" in 4 rounds of 32 acquires`);
      // Precondition: etcd did refuse batches this way (else nothing here could fail).
      expect(refused()).toBeGreaterThan(0);
      expect(warnings.filter((w) => /batch size lowered/.test(w))).toEqual([]);
      // Concurrent calls still leave in one large batch: a single halving (128 → 64) would split these 99.
      log.clear();
      await Promise.all(Array.from({ length: 100 }, (_, i) => p.acquireLease(`after-${i}`, 'A', 30_000)));
      expect(Math.max(...log.txns.map((t) => t.keys.length))).toBeGreaterThan(POLICY.batch.maxBatchSize / 2);
    } finally {
      await p.close();
    }
  });
});
