import { describe, expect, it } from 'vitest';
import { waitFor } from '../../cluster/wait-for.js';
import { JUMP_CHECK_INTERVAL_MS, LeaseClock } from '../../src/clock/lease-clock.js';
import type { LeaseLostError } from '../../src/errors/lease-lost.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { decodeLeaseValue } from '../../src/keys/lease-value.js';
import { POLICY } from '../../src/transport/policy.js';
import { SuspendableClock } from '../chaos/suspendable-clock.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

/**
 * A forward step of the wall clock (NTP correcting a clock that was behind, an operator) and a suspend look the
 * same from inside the process: the wall clock moved ahead of the monotonic one. Only etcd knows which it was —
 * after a step the key is still ours, after a long enough suspend it is gone. `hold()` handles must go by etcd:
 * a step ends no handle and deletes no key; a real suspend still ends the handle at once on waking.
 */
const etcd = useEtcdCluster();
const TTL_MS = 3000;

async function heldOnJumpableClock() {
  const source = new SuspendableClock();
  const prefix = etcd.uniquePrefix();
  const provider = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix }, { clock: new LeaseClock(source) });
  const handle = await provider.hold('H', 'A', TTL_MS);
  const ended: { at?: number } = {};
  handle.signal.addEventListener('abort', () => (ended.at = performance.now()));
  await new Promise((r) => setTimeout(r, 2 * JUMP_CHECK_INTERVAL_MS)); // the handle is settled in
  const stored = async () => (await etcd.rawClient().get(`${prefix}H`).exec()).kvs[0];
  return { source, provider, handle, ended, stored };
}

const reasonOf = (signal: AbortSignal) => (signal.aborted ? (signal.reason as LeaseLostError).reason : undefined);

describe('the wall clock stepped a minute forward while a lease is held', () => {
  it('the handle goes on, renewing, and its key is never deleted', async () => {
    const { source, provider, handle, stored } = await heldOnJumpableClock();
    try {
      const createdAt = (await stored())!.create_revision;
      source.jumpWall(60_000);
      await new Promise((r) => setTimeout(r, 3 * TTL_MS)); // three windows of real time
      const now = await stored();
      const holder = now === undefined ? undefined : decodeLeaseValue(now.value).owner;
      console.log(`[clock step] after a 60 s forward step: handle ${reasonOf(handle.signal) ?? 'still held'}, key ${holder ? `held by ${holder}` : 'deleted'}`);
      expect(reasonOf(handle.signal)).toBeUndefined();
      expect(now?.create_revision).toBe(createdAt); // the same key all along: never deleted and taken again
      expect(holder).toBe('A');
      expect(BigInt(now!.mod_revision)).toBeGreaterThan(BigInt(handle.fencingToken)); // renewed since
      await handle.release();
    } finally {
      await provider.close();
    }
  }, 60_000);
});

describe('the machine really suspended for longer than the window (etcd expired the key meanwhile)', () => {
  const SLACK_MS = 500; // timer lateness on a loaded 2-core machine

  it(`the handle aborts within ${JUMP_CHECK_INTERVAL_MS + POLICY.clockJumpRenewMs} ms (+${SLACK_MS} ms) of waking`, async () => {
    const { source, provider, handle, ended, stored } = await heldOnJumpableClock();
    try {
      // The whole process stops for 8 s (ttl 3 s, plus the pool's slack and etcd's expiry check), its monotonic clock too.
      const wokeAt = source.suspendProcess(8000);
      await waitFor('the handle to notice', () => ended.at !== undefined, { timeoutMs: 5000, intervalMs: 10 });
      console.log(`[real suspend] handle ended ${reasonOf(handle.signal)} ${Math.round(ended.at! - wokeAt)} ms after waking`);
      expect(ended.at! - wokeAt).toBeLessThanOrEqual(JUMP_CHECK_INTERVAL_MS + POLICY.clockJumpRenewMs + SLACK_MS);
      expect(['deleted', 'renew-refused', 'expired']).toContain(reasonOf(handle.signal));
      expect(await stored()).toBeUndefined();
    } finally {
      await provider.close();
    }
  }, 60_000);
});
