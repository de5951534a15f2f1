import { describe, expect, it } from 'vitest';
import { LeaseClock } from '../../src/clock/lease-clock.js';
import type { LeaseLostError } from '../../src/errors/lease-lost.js';
import { createLeaseProvider } from '../../src/provider.js';
import { decodeLeaseValue } from '../../src/keys/lease-value.js';
import { POLICY } from '../../src/policy.js';
import { SuspendableClock } from '../chaos/suspendable-clock.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

/**
 * A forward wall-clock step makes a held lease's window look over; the handle asks etcd with a renew before it gives
 * up (clock-step.test.ts). On a cluster that answers slower than the fixed 500 ms floor, that renew must get the time
 * this cluster's answers take (the adaptive attempt timeout), or a step ends every handle and deletes every key that a
 * slow answer would have kept.
 */
const etcd = useEtcdCluster();
const TTL_MS = 6000;
/** Each way on every member's client link: a renew then takes well over 500 ms. */
const CLIENT_LATENCY_MS = 350;

const reasonOf = (signal: AbortSignal) => (signal.aborted ? (signal.reason as LeaseLostError).reason : undefined);

describe('the wall clock stepped forward while etcd answers slower than 500 ms', () => {
  it('the handle goes on, renewing, and its key is never deleted', async () => {
    const source = new SuspendableClock();
    const prefix = etcd.uniquePrefix();
    const provider = createLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix }, { clock: new LeaseClock(source) });
    try {
      for (let i = 0; i < etcd.cluster.size; i++) await etcd.cluster.setClientLatency(i, CLIENT_LATENCY_MS);
      const handle = await provider.hold('H', 'A', TTL_MS);
      const stored = async () => (await etcd.rawClient().get(`${prefix}H`).exec()).kvs[0];
      const createdAt = (await stored())!.create_revision;
      // One renew answered (at ttl/3), so the provider has seen how slow this cluster answers.
      await new Promise((r) => setTimeout(r, TTL_MS / 3 + 4 * CLIENT_LATENCY_MS));
      const renewStarted = performance.now();
      expect(await provider.renewLease('H-probe', 'A', TTL_MS), 'precondition: a key nobody holds').toBe(false);
      const renewMs = performance.now() - renewStarted;
      expect(renewMs, 'precondition: etcd answers slower than the fixed clock-jump renew deadline').toBeGreaterThan(POLICY.clockJump.renewMs);
      source.jumpWall(60_000);
      await new Promise((r) => setTimeout(r, TTL_MS)); // a whole window of real time
      const now = await stored();
      const holder = now === undefined ? undefined : decodeLeaseValue(now.value).owner;
      console.log(`[clock step, slow etcd] a renew takes ${Math.round(renewMs)} ms; after a 60 s forward step: handle ${reasonOf(handle.signal) ?? 'still held'}, key ${holder ? `held by ${holder}` : 'deleted'}`);
      expect(reasonOf(handle.signal)).toBeUndefined();
      expect(now?.create_revision).toBe(createdAt);
      expect(holder).toBe('A');
      await handle.release();
    } finally {
      await etcd.cluster.healAll();
      for (let i = 0; i < etcd.cluster.size; i++) await etcd.cluster.setClientLatency(i, 0);
      await provider.close();
    }
  }, 60_000);
});
