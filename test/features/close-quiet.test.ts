import { describe, expect, it } from 'vitest';
import { LeaseClock } from '../../src/clock/lease-clock.js';
import { createLeaseProvider } from '../../src/provider.js';
import { SuspendableClock } from '../chaos/suspendable-clock.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

/**
 * close() cancels what is in flight, a lease grant started in the background included (the successor a pool
 * prefetches while the current lease still serves). Those are close()'s own cancellations, not failures: a process
 * that closes must not print a warning for each.
 */
const etcd = useEtcdCluster();
const TTL_MS = 2000;
const ROUNDS = 5;

describe('close() while a background lease grant is in flight', () => {
  it('logs no warning about the grant it cancelled', async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    for (let round = 0; round < ROUNDS; round++) {
      const source = new SuspendableClock();
      const provider = createLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix: etcd.uniquePrefix(), logger }, { clock: new LeaseClock(source) });
      expect((await provider.acquireLease('first', 'A', TTL_MS)).acquired).toBe(true);
      // The pool's lease now looks 700 ms older: within half a bucket of no longer fitting this TTL, so the next call
      // still uses it and starts its successor's grant in the background (leases/lease-choice.ts: shouldPrefetch).
      source.jumpWall(700);
      const second = provider.acquireLease('second', 'A', TTL_MS).catch(() => undefined);
      await provider.close(); // while that grant is on its way
      await second;
    }
    const grantWarnings = warnings.filter((w) => w.includes('background lease grant failed'));
    console.log(`[close] ${grantWarnings.length} background-grant warnings over ${ROUNDS} closes (${warnings.length} warnings in all)`);
    expect(grantWarnings).toEqual([]);
  }, 60_000);
});
