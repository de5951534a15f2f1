import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLeaseError, type EtcdLeaseProvider } from '../../src/index.js';
import { POLICY } from '../../src/policy.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

// etcd with a small backend quota, filled until it raises its NOSPACE alarm. etcd then refuses every Put, LeaseGrant
// and Txn whose top-level branches put something — but it prices a Txn by those top-level puts alone, so a batch of
// nested sub-transactions (the group committer's shape) is written anyway unless the provider sees to it: concurrent
// calls on a pooled lease the provider already has commit under the alarm. Here every write the provider is asked for
// while the alarm is raised must leave etcd's revision where it was, fail fast with ELEASE_NO_SPACE, and the same
// provider must write again once an operator has compacted, defragmented and disarmed.
const QUOTA_BYTES = 16 * 1024 * 1024;
const etcd = useEtcdCluster({ extraArgs: [`--quota-backend-bytes=${QUOTA_BYTES}`] });
const TTL_MS = 60_000; // no lease of the test expires (an expiry deletes keys: a revision of its own)
/** A refused call settles within this long; its deadline is 5 s. */
const FAST_MS = 1000;

/** A plain client without etcd3's breakers (they would open on the NOSPACE answers this test provokes). */
function plainClient(hosts: string[]): Etcd3 {
  return new Etcd3({ hosts, faultHandling: { global: noop, host: () => noop } });
}

let raw: Etcd3;
beforeAll(() => {
  raw = plainClient(etcd.cluster.endpoints());
});
afterAll(() => raw.close());
afterEach(async () => {
  await recover();
});

const revision = async () => (await raw.kv.range({ key: Buffer.from('any') })).header.revision;
const alarmRaised = async () => (await raw.maintenance.alarm({ action: 'Get' })).alarms.some((a) => a.alarm === 'Nospace');

/** Writes large values under a prefix of its own until etcd refuses with NOSPACE. */
async function fill(): Promise<void> {
  const big = Buffer.alloc(512 * 1024, 7);
  for (let i = 0; i < 200; i++) {
    try {
      await raw.put(`filler/${i % 4}`).value(big);
    } catch (error) {
      if (/database space exceeded/.test(String(error))) break;
      throw error;
    }
  }
  await waitFor('the NOSPACE alarm', alarmRaised, { timeoutMs: 10_000 });
}

/** What an operator does (etcdctl compact, defrag --cluster, alarm disarm); returns when the disarm was answered. */
async function recover(): Promise<number> {
  if (!(await alarmRaised())) return performance.now();
  await raw.delete().prefix('filler/');
  await raw.kv.compact({ revision: await revision(), physical: true });
  for (let i = 0; i < etcd.cluster.size; i++) {
    const member = plainClient([etcd.cluster.endpoint(i)]);
    try {
      await member.maintenance.defragment();
    } finally {
      member.close();
    }
  }
  for (const alarm of (await raw.maintenance.alarm({ action: 'Get' })).alarms) {
    await raw.maintenance.alarm({ action: 'Deactivate', memberID: alarm.memberID, alarm: alarm.alarm });
  }
  const disarmedAt = performance.now();
  expect(await alarmRaised()).toBe(false);
  return disarmedAt;
}

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  ms: number;
}

function timed(call: () => Promise<unknown>): Promise<Outcome> {
  const started = performance.now();
  return call().then(
    () => ({ ok: true, ms: performance.now() - started }),
    (error: unknown) => ({ ok: false, code: isLeaseError(error) ? error.code : undefined, message: String(error), ms: performance.now() - started }),
  );
}

async function modRevisions(p: EtcdLeaseProvider, keys: string[]): Promise<Array<string | undefined>> {
  return Promise.all(keys.map(async (k) => (await raw.kv.range({ key: Buffer.from(p.prefix + k) })).kvs[0]?.mod_revision));
}

describe('etcd NOSPACE alarm', () => {
  it('concurrent acquires, renews and transfers write nothing under the alarm and fail fast; reads and releases work; the same provider recovers', async () => {
    // Pooled leases that fit every call of the test (a bucket of 30 s): the writes under the alarm need no LeaseGrant,
    // which etcd would refuse by itself, and reach etcd as they do in a busy provider — batched on a lease it has.
    const p = etcd.provider({ leaseBucketMs: 30_000 });
    const held = Array.from({ length: 40 }, (_, i) => `held-${i}`);
    await Promise.all(held.map((k) => p.acquireLease(k, 'A', TTL_MS)));
    await fill();

    const before = await revision();
    const heldRevisions = await modRevisions(p, held);
    const fresh = Array.from({ length: 20 }, (_, i) => `new-${i}`);
    // One wave, as concurrent callers send it: the first call finds the committer idle and goes alone, the others
    // share transactions behind it.
    const outcomes = await Promise.all([
      ...fresh.map((k) => timed(() => p.acquireLease(k, 'A', TTL_MS))),
      ...held.slice(10).map((k) => timed(() => p.renewLease(k, 'A', TTL_MS))),
      ...held.slice(0, 10).map((k) => timed(() => p.transferLease(k, 'A', 'B', TTL_MS))),
    ]);
    const after = await revision();
    const written = (await Promise.all(fresh.map(async (k) => (await raw.kv.range({ key: Buffer.from(p.prefix + k) })).kvs.length))).reduce((a, b) => a + b, 0);
    console.info(
      `under the alarm: ${outcomes.filter((o) => o.ok).length} of ${outcomes.length} writes reported success, ${written} of ${fresh.length} new keys written, ` +
        `revision ${before} → ${after}; slowest refusal ${Math.max(...outcomes.map((o) => o.ms)).toFixed(0)} ms`,
    );
    expect(Number(after) - Number(before), 'writes committed under the alarm').toBe(0);
    expect(written).toBe(0);
    expect(await modRevisions(p, held)).toEqual(heldRevisions);
    for (const o of outcomes) {
      expect(o).toMatchObject({ ok: false, code: 'ELEASE_NO_SPACE' });
      expect(o.ms).toBeLessThan(FAST_MS);
    }
    expect(outcomes[0]!.message).toMatch(/NOSPACE alarm is raised.*compact.*defrag.*etcdctl alarm disarm/);

    // Reads and releases still work (etcd allows deletes), concurrent releases too.
    expect(await p.getLeaseOwner('held-0')).toBe('A');
    expect(await p.getLease('held-0')).toMatchObject({ owner: 'A' });
    await Promise.all(held.slice(30).map((k) => p.releaseLease(k, 'A')));
    expect(await modRevisions(p, held.slice(30))).toEqual(held.slice(30).map(() => undefined));

    // A later write is refused without reaching etcd: still nothing written.
    const late = await timed(() => p.acquireLease('late', 'A', TTL_MS));
    expect(late).toMatchObject({ ok: false, code: 'ELEASE_NO_SPACE' });

    // Compact, defragment, disarm: the same provider writes again, without a restart.
    const disarmedAt = await recover();
    let acquired = false;
    while (!acquired && performance.now() - disarmedAt < 5000) {
      acquired = (await timed(() => p.acquireLease('after', 'A', TTL_MS))).ok;
      if (!acquired) await new Promise((r) => setTimeout(r, 5));
    }
    const recoveredMs = performance.now() - disarmedAt;
    console.info(`first write succeeded ${recoveredMs.toFixed(0)} ms after the disarm was answered (probe gap ${POLICY.spaceAlarm.probeGapMs} ms)`);
    expect(acquired).toBe(true);
    expect(recoveredMs).toBeLessThan(POLICY.spaceAlarm.probeGapMs + FAST_MS);
    expect(await p.renewLease('held-11', 'A', TTL_MS)).toBe(true);
    expect(await p.transferLease('held-0', 'A', 'B', TTL_MS)).toBe(true);
    expect(await p.getLeaseOwner('held-0')).toBe('B');
  });

  it('a provider renewing in batches writes nothing once another client filled the database', async () => {
    const p = etcd.provider();
    const keys = Array.from({ length: 60 }, (_, i) => `renewed-${i}`);
    await Promise.all(keys.map((k) => p.acquireLease(k, 'A', TTL_MS)));
    // Renewals on timers of their own, several per key per second: they share transactions.
    let running = true;
    const results: Outcome[] = [];
    const renewers = keys.map(async (k, i) => {
      await new Promise((r) => setTimeout(r, i));
      while (running) {
        results.push(await timed(() => p.renewLease(k, 'A', TTL_MS)));
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    try {
      await waitFor('renewals to flow', () => results.filter((o) => o.ok).length > 200, { timeoutMs: 10_000 });
      await fill();
      // Renewals already on the wire when the alarm was raised may still land; from here on nothing may.
      await new Promise((r) => setTimeout(r, 200));
      const before = await revision();
      const from = results.length;
      await new Promise((r) => setTimeout(r, 1500));
      const after = await revision();
      const window = results.slice(from);
      console.info(`${window.length} renewals under the alarm: ${window.filter((o) => o.ok).length} succeeded; revision ${before} → ${after}`);
      expect(window.length, 'precondition: renewals kept coming').toBeGreaterThan(100);
      expect(Number(after) - Number(before), 'renewals committed under the alarm').toBe(0);
      expect(window.filter((o) => o.ok)).toEqual([]);
      expect(new Set(window.map((o) => o.code))).toEqual(new Set(['ELEASE_NO_SPACE']));
      expect(Math.max(...window.map((o) => o.ms))).toBeLessThan(FAST_MS);

      await recover();
      const resumedFrom = results.length;
      await waitFor('renewals to succeed again', () => results.slice(resumedFrom).filter((o) => o.ok).length >= keys.length, { timeoutMs: 5000 });
    } finally {
      running = false;
      await Promise.all(renewers);
    }
  });
});
