/**
 * The SIGKILLed-owner scenario both cross-process suites run, whatever carries the events between
 * the workers (a shared unix socket, or EtcdPubSub): the owner of a thread dies mid-run without a
 * word; until its lease's TTL has passed no other process may start a run on the thread, and soon
 * after it one must be able to.
 */
import { expect } from 'vitest';

import type { EtcdLeaseProvider } from '../../../src/provider.js';
import { waitFor } from '../../support/wait.js';
import { send } from './thread-commands.js';
import type { ThreadTarget } from './thread-commands.js';
import type { WorkerFleet, WorkerProcess } from './worker-fleet.js';

export interface TakeoverScenario {
  fleet: WorkerFleet;
  /** Reads the thread's owner straight from etcd (linearizable reads). */
  observer: EtcdLeaseProvider;
  victim: WorkerProcess;
  survivor: WorkerProcess;
  target: ThreadTarget;
  /** The agent-thread lease TTL the workers run with. */
  ttlMs: number;
  /** How long past its TTL a key may live: the provider's lease bucket plus etcd's expiry sweep. */
  expirySlackMs: number;
  /** Lets the survivor's takeover run end and the thread go idle, the suite's own way. */
  finish(): Promise<void>;
}

/**
 * Kills the owner, then checks: a message sent during the TTL is routed to the dead run (no second
 * run starts); the key outlives the victim's last lease write by at least the TTL and is free not
 * long after; the survivor then wakes the thread, and no two runs ever overlapped.
 */
export async function killOwnerAndTakeOver(s: TakeoverScenario): Promise<void> {
  const { fleet, observer, victim, survivor, target } = s;

  const first = await send(victim, 'before-kill', target);
  expect(first.action).toBe('wake');
  await fleet.until('the victim turn', () => fleet.heldTurns().find((t) => t.worker === victim.id));
  await waitFor('the victim to own the thread', async () => (await observer.getLeaseOwner(target.key)) === first.runId, { timeoutMs: 10_000 });

  await victim.kill();
  const killedAt = victim.killedAt!;

  // While the dead owner's lease is live the thread is not free: the message is routed to the dead
  // run (and lost — that is what the TTL bounds), and no second run starts.
  const during = await send(survivor, 'during-ttl', target);
  expect(during.action).toBe('deliver');
  expect(during.runId).toBe(first.runId);

  await waitFor('the dead owner lease to expire', async () => (await observer.getLeaseOwner(target.key)) === undefined, {
    timeoutMs: s.ttlMs + s.expirySlackMs + 5000,
    intervalMs: 20,
  });
  const freedAt = performance.timeOrigin + performance.now();
  // etcd may keep a key past its TTL but never drops it early: the thread stayed owned for at least
  // the TTL after the last lease write the victim sent (as far as its reports reached us).
  const lastHeld = Math.max(...victim.reports.flatMap((r) => (r.type === 'lease-held' && r.key === target.key ? [r.sentAt] : [])));
  expect(freedAt - lastHeld).toBeGreaterThanOrEqual(s.ttlMs - 50);
  // ... and not much longer, with room for a busy machine.
  expect(freedAt - killedAt).toBeLessThanOrEqual(s.ttlMs + s.expirySlackMs + 3000);

  const after = await send(survivor, 'after-ttl', target);
  expect(after.action).toBe('wake');
  expect(await observer.getLeaseOwner(target.key)).toBe(after.runId);
  await s.finish();

  const takeover = fleet.turnIntervals().find((t) => t.texts.includes('after-ttl'))!;
  expect(takeover.worker).toBe(survivor.id);
  expect(takeover.start).toBeGreaterThan(killedAt);
  expect(fleet.overlappingTurns()).toEqual([]);
}
