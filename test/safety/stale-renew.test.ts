import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import { machineClock } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { ownerOnlyRenew } from '../chaos/broken/owner-only-renew.js';
import type { ProviderFactory } from '../chaos/provider-under-test.js';
import { realProvider } from '../chaos/real-provider.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import { bWon, contendedKey, KEY, lastCall } from './support/contended-key.js';
import { CUT_MEMBER, cutScenario } from './support/cut-scenario.js';
import { useDeterministicHostOrder } from './support/host-order.js';
import { keyState, type KeyState } from './support/key-state.js';

/**
 * A stale renew (network): a renew whose first attempt sat in a cut link lands after a newer renew.
 *
 * A (first attempts to member 0) holds K with ttl 6 s. Member 0's client link is cut. A renews (R1): the attempt
 * is held, the retry answers true through member 1. 3.6 s later A renews again (R2, on a later lease) and then
 * stops renewing: it believes until R2 was sent + ttl. The link heals and R1's held attempt reaches etcd.
 * B polls acquire every 50 ms throughout. Comparing the owner alone, R1 moves K back onto its own lease, which
 * ends ~3.6 s too early: B wins while A believes. The real provider keeps K on R2's lease.
 */
const etcd = useEtcdCluster();
useDeterministicHostOrder();

const TTL_MS = 6000;
const R2_AFTER_MS = 3600;

interface StaleRenewRun {
  history: RecordedOp[];
  r2: RecordedOp;
  /** K after R2 returned, and after R1's held attempt landed. */
  before: KeyState;
  after: KeyState;
  lateDeliveries: number;
}

async function staleRenew(factory: ProviderFactory): Promise<StaleRenewRun> {
  const { cluster } = etcd;
  const { prefix, a, b, raw } = await cutScenario(etcd, factory);
  const lateBefore = cluster.clientConnections(CUT_MEMBER).lateDeliveries;
  let before: KeyState | undefined;
  let after: KeyState | undefined;
  const history = await contendedKey({ a, b }, TTL_MS, async ({ a, history }) => {
    await cluster.cutClient(CUT_MEMBER);
    try {
      expect(await a.renew(KEY, 'A', TTL_MS)).toBe(true);
      await new Promise((r) => setTimeout(r, lastCall(history, 'A', 'renew').sentAt + R2_AFTER_MS - machineClock()));
      expect(await a.renew(KEY, 'A', TTL_MS)).toBe(true);
      before = await keyState(raw, `${prefix}${KEY}`);
    } finally {
      await cluster.heal(CUT_MEMBER);
    }
    // R1's held attempt reaches etcd: K is written again while nobody is calling.
    after = await waitFor(
      'R1\u2019s held attempt to land',
      async () => {
        const state = await keyState(raw, `${prefix}${KEY}`);
        return state !== undefined && state.modRevision !== before!.modRevision ? state : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 20 },
    );
  });
  const lateDeliveries = cluster.clientConnections(CUT_MEMBER).lateDeliveries - lateBefore;
  return { history, r2: lastCall(history, 'A', 'renew'), before: before!, after: after!, lateDeliveries };
}

describe('stale renew: a renew held in a cut link lands after a newer renew of the same owner', () => {
  it('real provider: the late renew leaves K on the newer lease; K lasts until R2 was sent + ttl; no overlap', async () => {
    const run = await staleRenew(realProvider);
    expect(run.lateDeliveries).toBeGreaterThan(0);
    expect(run.after).toMatchObject({ value: 'A', lease: run.before.lease });
    expect(bWon(run.history).returnedAt).toBeGreaterThanOrEqual(run.r2.sentAt + TTL_MS);
    expect(checkOverlaps(run.history)).toEqual([]);
  }, 60_000);

  it('negative control (renew compares only the owner): the late renew moves K back onto R1\u2019s lease and the checker flags A and B both believing', async () => {
    const run = await staleRenew(ownerOnlyRenew);
    expect(run.lateDeliveries).toBeGreaterThan(0);
    expect(run.after.value).toBe('A');
    expect(run.after.lease).toBeLessThan(run.before.lease);
    const overlaps = checkOverlaps(run.history);
    expect(overlaps.map((o) => [o.first.owner, o.second.owner])).toEqual([['A', 'B']]);
    console.log(`[stale-renew control] A and B both believed for ${overlaps[0]!.overlapMs.toFixed(0)} ms`);
  }, 60_000);
});
