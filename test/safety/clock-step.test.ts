import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { killQuietly, onProcessExit } from '../../launcher/exit-cleanup.js';
import { LeaseClock } from '../../src/clock/lease-clock.js';
import type { LeaseLostError } from '../../src/errors/lease-lost.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { createLeaseProvider } from '../../src/provider.js';
import { decodeLeaseValue } from '../../src/keys/lease-value.js';
import { POLICY } from '../../src/policy.js';
import { SuspendableClock } from '../chaos/suspendable-clock.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import { SUSPENDED_HOLDER_ENV, type SuspendedHolderConfig, type SuspendedHolderMessage } from './support/suspended-holder-process.js';

/**
 * A forward step of the wall clock (NTP correcting a clock that was behind, an operator) and a suspend look the
 * same from inside the process: the wall clock moved ahead of the monotonic one. Only etcd knows which it was —
 * after a step the key is still ours, after a long enough suspend it is gone. `hold()` handles must go by etcd:
 * a step ends no handle and deletes no key; a real suspend still ends the handle at once on waking (and
 * suspended-clock.test.ts: one woken with etcd out of reach).
 */
const etcd = useEtcdCluster();
const TTL_MS = 3000;

async function heldOnJumpableClock() {
  const source = new SuspendableClock();
  const prefix = etcd.uniquePrefix();
  const provider = createLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix }, { clock: new LeaseClock(source) });
  const handle = await provider.hold('H', 'A', TTL_MS);
  await new Promise((r) => setTimeout(r, 2 * POLICY.clockJump.checkEveryMs)); // the handle is settled in
  const stored = async () => (await etcd.rawClient().get(`${prefix}H`).exec()).kvs[0];
  return { source, provider, handle, stored };
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

describe('the machine really suspended for longer than the window', () => {
  const SLACK_MS = 500; // timer lateness on a loaded 2-core machine
  const BOUND_MS = POLICY.clockJump.checkEveryMs + POLICY.clockJump.renewMs;

  // In a process of its own: a suspend blocks the whole process, and this one runs the cluster's fault proxies.
  it(`the handle aborts within ${BOUND_MS} ms (+${SLACK_MS} ms) of waking, after another owner took the key meanwhile`, async () => {
    const prefix = etcd.uniquePrefix();
    const config: SuspendedHolderConfig = { endpoints: etcd.cluster.endpoints(), prefix, key: 'H', ttlMs: TTL_MS, suspendMs: 8000, waitMs: 3000 };
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/safety/support/suspended-holder-process.ts'], {
      env: { ...process.env, [SUSPENDED_HOLDER_ENV]: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const forget = onProcessExit(() => killQuietly(child.pid));
    const messages: SuspendedHolderMessage[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => messages.push(JSON.parse(line) as SuspendedHolderMessage));
    const b = new EtcdLeaseProvider({ hosts: etcd.cluster.endpoints(), prefix });
    try {
      await waitFor('the child to hold H', () => messages.some((m) => 'held' in m), { timeoutMs: 20_000, intervalMs: 20 });
      child.stdin!.write('suspend\n');
      // While A sleeps etcd lets H expire, and B takes it.
      await waitFor('B to win H', async () => ((await b.acquireLease('H', 'B', TTL_MS)).acquired ? true : undefined), { timeoutMs: 8000, intervalMs: 50 });
      const woke = await waitFor('the child to report', () => messages.find((m): m is Extract<SuspendedHolderMessage, { woke: unknown }> => 'woke' in m), {
        timeoutMs: 20_000,
        intervalMs: 20,
      });
      console.log(`[real suspend] B took H while A slept; A's handle ended ${woke.woke.reason} ${Math.round(woke.woke.abortedAfterMs ?? NaN)} ms after waking`);
      expect(woke.woke.abortedAfterMs).toBeDefined();
      expect(woke.woke.abortedAfterMs!).toBeLessThanOrEqual(BOUND_MS + SLACK_MS);
    } finally {
      await b.close();
      killQuietly(child.pid);
      forget();
    }
  }, 60_000);
});
