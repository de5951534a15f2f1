import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import type { ClockSource } from '../../src/clock/clock-source.js';
import { LeaseClock } from '../../src/clock/lease-clock.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { createLeaseProvider } from '../../src/provider.js';
import { clockJumpCheckMs } from '../../src/handles/held-lease.js';
import { POLICY } from '../../src/policy.js';
import { MonotonicOnlyClock } from '../chaos/broken/monotonic-only-clock.js';
import { SuspendableClock } from '../chaos/suspendable-clock.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import { bWon, contendedKey, KEY, lastCall } from './support/contended-key.js';

/**
 * A suspended machine: measured on the monotonic clock, which stops while the machine is suspended (etcd's clock
 * does not), every pooled lease would look S younger than it is after a suspend of S. The lease clock counts it.
 *
 * A holds K with ttl 6 s. Its machine is "suspended" for 4 s: its monotonic clock stops while wall time and etcd
 * run on. Right after resuming, A renews. B polls acquire every 50 ms. On a monotonic-only clock the renew rides
 * the lease K already had, which ends ~3 s after the renew was sent: B wins while A believes. The real LeaseClock
 * counts the suspend and moves K to a lease that lasts.
 */
const etcd = useEtcdCluster();

const TTL_MS = 6000;
const SUSPEND_MS = 4000;
const DEADLINE_MS = 5000;
const HELD_TTL_MS = 6000;
// Timer lateness on a loaded 2-core machine, not the provider: the check itself runs every
// POLICY.clockJump.checkEveryMs, and the renew that asks etcd whether the window really ended (a forward clock step
// looks the same) has clockJumpCheckMs to answer, which grows with the cluster's attempt timeout.
const SLACK_MS = 500;

type ClockFor = (source: ClockSource) => LeaseClock;
const realClock: ClockFor = (source) => new LeaseClock(source);
const monotonicOnly: ClockFor = (source) => new MonotonicOnlyClock(source);

async function renewAfterSuspend(clockFor: ClockFor): Promise<{ history: RecordedOp[]; renew: RecordedOp }> {
  const prefix = etcd.uniquePrefix();
  const source = new SuspendableClock();
  const a = createLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix }, { clock: clockFor(source) });
  const b = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix });
  const history = await contendedKey({ a, b }, TTL_MS, async ({ a }) => {
    source.freeze(); // A's machine sleeps: it makes no call, its monotonic clock stands still
    await new Promise((r) => setTimeout(r, SUSPEND_MS));
    source.thaw();
    expect(await a.renew(KEY, 'A', TTL_MS)).toBe(true);
  });
  return { history, renew: lastCall(history, 'A', 'renew') };
}

/**
 * Milliseconds from waking until the handle's signal aborted, or undefined if it had not within `waitMs`. The process
 * wakes from a 4 s suspend to find etcd out of reach (every member's client link cut, as on a laptop that wakes
 * without its network): neither the watch nor a renew can tell the handle anything, only its clock can.
 */
async function handleSignalAfterWake(clockFor: ClockFor): Promise<{ afterMs: number | undefined; boundMs: number }> {
  const source = new SuspendableClock();
  const provider = createLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix: etcd.uniquePrefix(), deadlineMs: DEADLINE_MS }, { clock: clockFor(source) });
  try {
    const handle = await provider.hold('H', 'A', HELD_TTL_MS);
    let abortedAt: number | undefined;
    handle.signal.addEventListener('abort', () => (abortedAt = performance.now()));
    await new Promise((r) => setTimeout(r, 2 * POLICY.clockJump.checkEveryMs)); // the handle is settled in
    await Promise.all(etcd.cluster.members().map((m) => etcd.cluster.cutClient(m.index)));
    // The wall clock is 8 s on, the monotonic clock is not, and no timer has fired — the handle's window (last
    // renew + 6 s) ended while it slept. On the monotonic clock alone it has seconds left: it would end only when
    // its renews, failing, ran out its window (about 4–6 s after waking), well after the check's bound.
    source.jumpWall(HELD_TTL_MS + 2000);
    const wokeAt = performance.now();
    // What the handle's check may take on this cluster: the attempt timeout adapts to the latencies it has seen.
    const boundMs = POLICY.clockJump.checkEveryMs + clockJumpCheckMs(DEADLINE_MS, provider['runner'].timeouts.baseMs);
    await waitFor('the handle to notice', () => abortedAt !== undefined, { timeoutMs: boundMs + SLACK_MS, intervalMs: 10 }).catch(() => undefined);
    return { afterMs: abortedAt === undefined ? undefined : abortedAt - wokeAt, boundMs };
  } finally {
    await etcd.cluster.healAll();
    await provider.close();
  }
}

describe('suspended clock: a renew right after the machine resumes from a suspend', () => {
  it('real clock: the suspend is counted, the renew moves K to a lease that lasts; no overlap', async () => {
    const { history, renew } = await renewAfterSuspend(realClock);
    expect(bWon(history).returnedAt).toBeGreaterThanOrEqual(renew.sentAt + TTL_MS);
    expect(checkOverlaps(history)).toEqual([]);
  }, 60_000);

  it('negative control (monotonic-only clock): K ends seconds after the renew was sent and the checker flags the overlap', async () => {
    const { history, renew } = await renewAfterSuspend(monotonicOnly);
    const won = bWon(history);
    console.log(`[suspended-clock control] K was free ${((won.returnedAt - renew.sentAt) / 1000).toFixed(1)} s after the renew was sent (ttl ${TTL_MS / 1000} s)`);
    expect(won.returnedAt).toBeLessThan(renew.sentAt + TTL_MS);
    const overlaps = checkOverlaps(history);
    expect(overlaps.map((o) => [o.first.owner, o.second.owner])).toEqual([['A', 'B']]);
  }, 60_000);
});

describe('a held lease whose window ended while the machine slept, woken with etcd out of reach', () => {
  it(`real clock: the handle's signal aborts within the clock-jump check (+${SLACK_MS} ms slack) of waking`, async () => {
    const { afterMs, boundMs } = await handleSignalAfterWake(realClock);
    expect(afterMs).toBeDefined();
    expect(afterMs!).toBeLessThanOrEqual(boundMs + SLACK_MS);
  }, 30_000);

  it('negative control (monotonic-only clock): the handle sees no time pass and keeps believing past that bound', async () => {
    expect((await handleSignalAfterWake(monotonicOnly)).afterMs).toBeUndefined();
  }, 30_000);
});
