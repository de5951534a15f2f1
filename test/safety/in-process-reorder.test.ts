import { Etcd3, GRPCDeadlineExceededError } from 'etcd3';
import { describe, expect, it, vi } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { LeaseBackend } from '../../src/calls/lease-backend.js';
import { OPERATIONS, type OperationSet } from '../../src/calls/operation-set.js';
import { KeyLanes } from '../../src/commit/key-lanes.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { createLeaseProvider } from '../../src/provider.js';
import { OWNER_ONLY_RENEW } from '../chaos/broken/owner-only-renew.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { bWon, contendedKey, KEY } from './support/contended-key.js';

/**
 * A stale renew in process (no network fault): two renews of one owner on one key overlap — Mastra's timer
 * does not wait for the previous renew — and the first one's first attempt fails. The group committer keeps
 * per-key order only while an attempt is in flight: once R1's attempt fails, R2 (queued behind it) goes first
 * and R1's retry lands after it. With a renew that compares only the owner, R1's retry moves K back onto R1's
 * shorter lease. Two fixes close this path, each on its own: per-key call order (KeyLanes: R2 is not sent
 * before R1 has settled) and the version-pinned refresh (a late write never moves K to an earlier-ending lease).
 *
 * R1's first attempt is made to fail without any network: the test's etcd client answers that one Txn with a
 * timeout after 3.5 s, without sending it. R2 is sent 3 s after R1.
 */
const etcd = useEtcdCluster();

const TTL_MS = 6000;
const R1_FAILS_AFTER_MS = 3500;
const R2_AFTER_MS = 3000;

interface Variant {
  readonly renew: OperationSet['renew'];
  readonly keyLanes: boolean;
  /**
   * Break the refresh's choice too: take every lease of ours the key is on as ending before the call's need, so a
   * refresh always moves the key to the call's own lease (as a provider comparing lease ids after a clock step did).
   * A refresh that keeps a key whose lease already reaches the need is a third guard against this reordering.
   */
  readonly moveToCallLease?: boolean;
}

/** An etcd client whose next Txn fails with a timeout after `ms`, never sent: an attempt that failed. */
function clientFailingNextTxn(hosts: string[]): { client: Etcd3; failNextTxn(ms: number): void } {
  const client = new Etcd3({ hosts });
  const send = client.kv.txn.bind(client.kv);
  let failing: number | undefined;
  client.kv.txn = (request, options) => {
    if (failing === undefined) return send(request, options);
    const ms = failing;
    failing = undefined;
    return new Promise((_, reject) => setTimeout(() => reject(new GRPCDeadlineExceededError('attempt timed out (simulated)')), ms));
  };
  return { client, failNextTxn: (ms) => (failing = ms) };
}

async function overlappingRenews(variant: Variant): Promise<{ history: RecordedOp[]; r1: RecordedOp; r2: RecordedOp }> {
  // Without per-key order every call enters its lane at once: both entry points (the free-lane fast path and the wait).
  const withoutLanes = variant.keyLanes
    ? []
    : [
        vi.spyOn(KeyLanes.prototype, 'tryEnter').mockImplementation(() => () => undefined),
        vi.spyOn(KeyLanes.prototype, 'enter').mockImplementation(async () => () => undefined),
      ];
  const restore: Array<{ mockRestore(): void }> = [...withoutLanes];
  if (variant.moveToCallLease) {
    const ownLease = LeaseBackend.prototype.ownLease;
    restore.push(
      vi.spyOn(LeaseBackend.prototype, 'ownLease').mockImplementation(function (this: LeaseBackend, id: string) {
        const known = ownLease.call(this, id);
        return known === undefined ? undefined : { ...known, notBefore: -Infinity, steadyNotBefore: -Infinity };
      }),
    );
  }
  const prefix = etcd.uniquePrefix();
  const { client, failNextTxn } = clientFailingNextTxn(etcd.cluster.endpoints());
  const a = createLeaseProvider({ client, prefix }, { operations: { ...OPERATIONS, renew: variant.renew } });
  const b = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix });
  try {
    const history = await contendedKey({ a, b }, TTL_MS, async ({ a }) => {
      failNextTxn(R1_FAILS_AFTER_MS);
      const r1 = a.renew(KEY, 'A', TTL_MS); // not awaited, like Mastra's renew timer
      await new Promise((r) => setTimeout(r, R2_AFTER_MS));
      const r2 = a.renew(KEY, 'A', TTL_MS);
      expect(await Promise.all([r1, r2])).toEqual([true, true]);
    });
    const renews = history.filter((o) => o.op === 'renew').sort((x, y) => x.sentAt - y.sentAt);
    return { history, r1: renews[0]!, r2: renews[1]! };
  } finally {
    for (const spy of restore) spy.mockRestore();
    client.close();
  }
}

describe('stale renew in process: an older renew\u2019s retry after a newer renew of the same owner', () => {
  it('real provider: R2 waits until R1 has settled, and K lasts until R2 was sent + ttl; no overlap', async () => {
    const { history, r1, r2 } = await overlappingRenews({ renew: OPERATIONS.renew, keyLanes: true });
    // R2 returned only after R1's first attempt had failed (3.5 s after R1 was sent; R2 was sent at 3 s): it
    // waited for R1. (Not against r1.returnedAt: the recorder takes that after reading R1's token back, a read
    // that races R2's own write.)
    expect(r2.returnedAt).toBeGreaterThan(r1.sentAt + R1_FAILS_AFTER_MS);
    expect(bWon(history).returnedAt).toBeGreaterThanOrEqual(r2.sentAt + TTL_MS);
    expect(checkOverlaps(history)).toEqual([]);
  }, 60_000);

  it('without per-key order R1\u2019s retry does land after R2, and the version-pinned refresh alone keeps it harmless', async () => {
    const { history, r1, r2 } = await overlappingRenews({ renew: OPERATIONS.renew, keyLanes: false });
    expect(r1.returnedAt).toBeGreaterThan(r2.returnedAt);
    expect(checkOverlaps(history)).toEqual([]);
  }, 60_000);

  it('negative control (no per-key order, renew compares only the owner, the refresh always moves the key to the call\u2019s lease): K goes back onto R1\u2019s lease and the checker flags the overlap', async () => {
    const { history, r1, r2 } = await overlappingRenews({ renew: OWNER_ONLY_RENEW, keyLanes: false, moveToCallLease: true });
    expect(r1.returnedAt).toBeGreaterThan(r2.returnedAt);
    const overlaps = checkOverlaps(history);
    expect(overlaps.map((o) => [o.first.owner, o.second.owner])).toEqual([['A', 'B']]);
    console.log(`[in-process control] A and B both believed for ${overlaps[0]!.overlapMs.toFixed(0)} ms`);
  }, 60_000);
});
