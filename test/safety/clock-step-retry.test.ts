import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import { Recorder } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { stepsCountAsElapsed } from '../chaos/broken/steps-count-as-elapsed.js';
import type { ProviderFactory } from '../chaos/provider-under-test.js';
import { realProvider } from '../chaos/real-provider.js';
import { SuspendableClock } from '../chaos/suspendable-clock.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import { KEY } from './support/contended-key.js';
import { CUT_MEMBER, cutScenario } from './support/cut-scenario.js';
import { useDeterministicHostOrder } from './support/host-order.js';
import { pollAcquire, type Poller } from './support/poller.js';

/**
 * A wall-clock step straddling a retry. A call's first attempt sits in a cut link (member 0's); while it waits, A's
 * wall clock is stepped (NTP, an operator); the attempt times out and the retry, through member 1, chooses the
 * lease the key goes on. Then A stops calling and B polls for K: if etcd lets K go before the call's send time +
 * ttl, B wins while A still believes, and the checker flags the overlap.
 *
 * A forward step makes the process see time pass that did not. Counted as elapsed, it drops the pool's leases
 * (they look expired), sizes the retry's lease from the jumped clock (1 s instead of ~6 s), and — the new lease's
 * id being larger — moves the key onto it. The provider measures the call's need on a scale steps do not move too
 * (clock/lease-clock.ts), so the lease reaches it in real time. A backward step must not shorten anything either.
 */
const etcd = useEtcdCluster();
useDeterministicHostOrder();

const TTL_MS = 6000;
const STEP_MS = 12_000;
/** A renew's or transfer's send time after the acquire: past when the acquire's lease would still do for it. */
const CALL_AFTER_MS = 2500;
/** When the wall steps, after the call: its first attempt waits at least an attempt timeout (500 ms or more). */
const STEP_AFTER_MS = 200;

type Call = 'acquire' | 'renew' | 'transfer';

async function stepDuringRetry(factory: ProviderFactory, call: Call, stepMs: number): Promise<RecordedOp[]> {
  const { cluster } = etcd;
  const source = new SuspendableClock();
  const { a, b } = await cutScenario(etcd, (options) => factory(options, source));
  const history: RecordedOp[] = [];
  const ra = new Recorder('A', a, (op) => history.push(op));
  const rb = new Recorder('B', b, (op) => history.push(op));
  let poller: Poller | undefined;
  try {
    if (call !== 'acquire') {
      expect(await ra.acquire(KEY, 'A', TTL_MS)).toBe(true);
      // The renew or transfer comes once K's lease no longer lasts for a call made then: it moves K to another.
      await new Promise((r) => setTimeout(r, CALL_AFTER_MS));
    }
    // A lease in A's pool that the call's first attempt finds ready (a grant would sit in the cut link as well).
    expect(await ra.acquire('W', 'A', TTL_MS)).toBe(true);
    const lateBefore = cluster.clientConnections(CUT_MEMBER).lateDeliveries;
    await cluster.cutClient(CUT_MEMBER);
    let stepped = false;
    let answered: boolean | undefined;
    try {
      const step = setTimeout(() => {
        source.jumpWall(stepMs);
        stepped = true;
      }, STEP_AFTER_MS);
      if (call === 'acquire') answered = await ra.acquire(KEY, 'A', TTL_MS);
      else if (call === 'renew') answered = await ra.renew(KEY, 'A', TTL_MS);
      else answered = await ra.transfer(KEY, 'A', 'A2', TTL_MS);
      clearTimeout(step);
    } finally {
      await cluster.heal(CUT_MEMBER);
    }
    expect(answered).toBe(true);
    expect(stepped).toBe(true); // the step came between the first attempt and the answer
    // The first attempt was held, so the answer came from a retry; it lands now, pinned to what it was sent for.
    await waitFor('the held first attempt to be delivered', () => cluster.clientConnections(CUT_MEMBER).lateDeliveries > lateBefore, { timeoutMs: 5_000 });
    poller = pollAcquire(rb, KEY, 'B', TTL_MS);
    await waitFor('B to win K', () => poller!.won, { timeoutMs: TTL_MS + 15_000, intervalMs: 50 });
    return history;
  } finally {
    await poller?.stop();
    await Promise.all([a.close(), b.close()]);
  }
}

function report(what: string, history: RecordedOp[]) {
  const overlaps = checkOverlaps(history);
  const worst = Math.max(0, ...overlaps.map((o) => o.overlapMs));
  console.log(`[clock step during a retry] ${what}: ${overlaps.length} overlap(s), longest ${(worst / 1000).toFixed(1)} s`);
  return overlaps;
}

describe('a wall-clock step between a call and its retry never shortens the lease the call reported', () => {
  for (const call of ['renew', 'acquire', 'transfer'] as const) {
    for (const [direction, stepMs] of [
      ['forward', STEP_MS],
      ['backward', -STEP_MS],
    ] as const) {
      it(`${call}, ${STEP_MS / 1000} s ${direction}: K lasts until the call's send time + ttl; no overlap`, async () => {
        const history = await stepDuringRetry(realProvider, call, stepMs);
        expect(report(`${call}, ${direction}`, history)).toEqual([]);
      }, 60_000);
    }
  }

  for (const [call, holder] of [
    ['renew', 'A'],
    ['acquire', 'A'],
    ['transfer', 'A2'],
  ] as const) {
    it(`negative control (a forward step counted as elapsed time), ${call}: K goes on a lease too short, and the checker flags ${holder} and B both believing`, async () => {
      const history = await stepDuringRetry(stepsCountAsElapsed, call, STEP_MS);
      const overlaps = report(`negative control, ${call}, forward`, history);
      expect(overlaps.map((o) => [o.first.owner, o.second.owner])).toEqual([[holder, 'B']]);
    }, 60_000);
  }
});
