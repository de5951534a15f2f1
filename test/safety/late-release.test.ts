import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { ownerOnlyRelease } from '../chaos/broken/owner-only-release.js';
import type { ProviderFactory } from '../chaos/provider-under-test.js';
import { realProvider } from '../chaos/real-provider.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import { bWon, contendedKey, KEY, lastCall } from './support/contended-key.js';
import { CUT_MEMBER, cutScenario } from './support/cut-scenario.js';
import { useDeterministicHostOrder } from './support/host-order.js';
import { keyState } from './support/key-state.js';

/**
 * A late release: a release that lands late must not delete a later tenure of the same owner string.
 *
 * A (first attempts to member 0) holds K. Member 0's client link is cut. A releases: the attempt is held, the
 * retry deletes K through member 1. A acquires K again — a new tenure, which it believes for its ttl. The link
 * heals and the held release reaches etcd. B polls acquire every 50 ms from the new tenure on. Comparing the
 * owner alone, the late release deletes the new tenure and B wins while A believes. The real release names the
 * revision of the tenure it meant, so it deletes nothing.
 */
const etcd = useEtcdCluster();
useDeterministicHostOrder();

const TTL_MS = 6000;

async function lateRelease(factory: ProviderFactory): Promise<{ history: RecordedOp[]; lateDeliveries: number }> {
  const { cluster } = etcd;
  const { prefix, a, b, raw } = await cutScenario(etcd, factory);
  const lateBefore = cluster.clientConnections(CUT_MEMBER).lateDeliveries;
  const history = await contendedKey(
    { a, b },
    TTL_MS,
    async ({ a, startPolling }) => {
      await cluster.cutClient(CUT_MEMBER);
      try {
        expect(await a.release(KEY, 'A')).toBe(true);
        expect(await keyState(raw, `${prefix}${KEY}`)).toBeUndefined();
        expect(await a.acquire(KEY, 'A', TTL_MS)).toBe(true);
        startPolling(); // between the release and the new tenure, K was rightly free
      } finally {
        await cluster.heal(CUT_MEMBER);
      }
      await waitFor('the held release to be delivered', () => cluster.clientConnections(CUT_MEMBER).lateDeliveries > lateBefore, { timeoutMs: 5_000 });
    },
    { pollFromStart: false },
  );
  return { history, lateDeliveries: cluster.clientConnections(CUT_MEMBER).lateDeliveries - lateBefore };
}

describe('late release: a release held in a cut link lands after the same owner took the key again', () => {
  it('real provider: the late release names the old tenure and deletes nothing; B wins only after A\u2019s new tenure ends', async () => {
    const { history, lateDeliveries } = await lateRelease(realProvider);
    expect(lateDeliveries).toBeGreaterThan(0);
    expect(bWon(history).returnedAt).toBeGreaterThanOrEqual(lastCall(history, 'A', 'acquire').sentAt + TTL_MS);
    expect(checkOverlaps(history)).toEqual([]);
  }, 60_000);

  it('negative control (release compares only the owner): the late release deletes the new tenure and the checker flags the overlap', async () => {
    const { history, lateDeliveries } = await lateRelease(ownerOnlyRelease);
    expect(lateDeliveries).toBeGreaterThan(0);
    const overlaps = checkOverlaps(history);
    expect(overlaps.map((o) => [o.first.owner, o.second.owner])).toEqual([['A', 'B']]);
    console.log(`[late-release control] A and B both believed for ${overlaps[0]!.overlapMs.toFixed(0)} ms`);
  }, 60_000);
});
