import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import type { ClockSource } from '../../src/clock/clock-source.js';
import { LeaseClock } from '../../src/clock/lease-clock.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { createLeaseProvider } from '../../src/provider.js';
import { LeaseIdSpace } from '../../src/leases/lease-id.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { bWon, contendedKey, KEY, lastCall } from './support/contended-key.js';

/**
 * Two providers that drew the same lease-id tag mint the same id when one's clock reads, at the moment it grants, what
 * the other's read seconds earlier. A provider P — same tag, clock 3 s ahead of A's — grants a lease for its own key;
 * 3 s later A acquires K with the same TTL and asks etcd for that very id. The lease etcd has under it ends 3 s
 * sooner than A's id says. A must not put K on it: B polls K every 50 ms, and K vanishing before A's window ends
 * is an overlap.
 *
 * The clocks are frozen: each provider's LeaseClock reads the same value at every moment, which is what makes the
 * two grants' ids equal however long the calls take (P's grant is "3 s ahead" because it happens 3 s earlier).
 */
const etcd = useEtcdCluster();

const TAG = 4242;
const TTL_MS = 10_000;
const SKEW_MS = 3_000;

const frozenAt = (wall: number): ClockSource => ({ monotonic: () => 0, wall: () => wall });

async function acquireOnACollidingId() {
  const prefix = etcd.uniquePrefix();
  const wall = Date.now();
  const hosts = etcd.cluster.endpoints();
  const p = createLeaseProvider({ hosts, prefix }, { clock: new LeaseClock(frozenAt(wall)), leaseIdTag: TAG });
  const a = createLeaseProvider({ hosts, prefix }, { clock: new LeaseClock(frozenAt(wall)), leaseIdTag: TAG });
  const b = new EtcdLeaseProvider({ hosts, prefix });
  try {
    expect(await p.acquireLease('other-key', 'P', TTL_MS)).toMatchObject({ acquired: true });
    // The id both pools choose for a 10 s call at clock 0: the TTL asked (ttl + bucket, whole seconds) from 0.
    const collidingId = new LeaseIdSpace(wall, TAG).idFor(11_000);
    const raw = etcd.rawClient();
    const onP = (await raw.get(`${prefix}other-key`).exec()).kvs[0]!.lease;
    expect(onP).toBe(collidingId); // precondition: P's lease is the one A is about to ask for
    await new Promise((r) => setTimeout(r, SKEW_MS));
    let onA: string | undefined;
    const history = await contendedKey({ a, b }, TTL_MS, async () => {
      onA = (await raw.get(`${prefix}${KEY}`).exec()).kvs[0]?.lease; // the lease A's acquire put K on
    });
    return { history, collidingId, onA };
  } finally {
    await p.close();
  }
}

describe('a lease id minted by another provider with the same tag and a clock ahead', () => {
  it('is not adopted: K goes on a lease of its own and B wins only after A’s window; no overlap', async () => {
    const { history, collidingId, onA } = await acquireOnACollidingId();
    const acquired = lastCall(history, 'A', 'acquire');
    const won = bWon(history);
    console.log(
      `[lease-id collision] K on ${onA === collidingId ? 'the colliding lease' : 'a lease of its own'}; ` +
        `B won ${((won.returnedAt - acquired.sentAt) / 1000).toFixed(1)} s after A's ${TTL_MS / 1000} s acquire was sent`,
    );
    expect(onA).not.toBe(collidingId);
    expect(won.returnedAt).toBeGreaterThanOrEqual(acquired.sentAt + TTL_MS);
    expect(checkOverlaps(history)).toEqual([]);
  }, 60_000);
});
