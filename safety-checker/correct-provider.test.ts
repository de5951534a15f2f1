/**
 * The checkers must never flag a history a correct provider could have produced, whatever
 * the timing, concurrency, or client behaviour; and they must catch a broken one.
 * Histories come from a tiny linearizable lease server: each call takes effect at one
 * instant between its send and its return, leases never expire before ttl (possibly
 * later, as in etcd), and every write gets the next revision as its fencing token.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFencingMonotonic, checkOverlaps } from './check-overlaps.js';
import type { LeaseOpKind, RecordedOp } from './types.js';

const OWNERS = ['A', 'B', 'C'] as const;

interface Call {
  readonly owner: number;
  readonly to: number;
  readonly op: LeaseOpKind;
  readonly sentAt: number;
  readonly latency: number;
  /** Where in [sentAt, returnedAt] the server applies it, as a fraction. */
  readonly at: number;
  /** The call throws; `applied` says whether its write committed anyway. */
  readonly throws: boolean;
  readonly applied: boolean;
  /** How much longer than ttl the server keeps the lease (etcd may keep it longer, never shorter). */
  readonly slack: number;
}

const arbCall = (span: number): fc.Arbitrary<Call> =>
  fc.record({
    owner: fc.integer({ min: 0, max: OWNERS.length - 1 }),
    to: fc.integer({ min: 0, max: OWNERS.length - 1 }),
    op: fc.constantFrom<LeaseOpKind>('acquire', 'acquire', 'renew', 'renew', 'release', 'transfer'),
    sentAt: fc.integer({ min: 0, max: span }),
    latency: fc.integer({ min: 0, max: 30 }),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    throws: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    applied: fc.boolean(),
    slack: fc.integer({ min: 0, max: 10 }),
  });

// Short spans crowd calls together (contention, equal clock readings); long ones let leases lapse.
const arbRun = fc.record({
  ttl: fc.integer({ min: 5, max: 60 }),
  calls: fc.integer({ min: 20, max: 300 }).chain((span) => fc.array(arbCall(span), { minLength: 2, maxLength: 40, size: 'max' })),
});

interface ServerFaults {
  /** Leases vanish this long BEFORE ttl. */
  readonly expireEarlyBy?: number;
  /** Renew succeeds for anyone while the key is held (no compare on the owner). */
  readonly renewIgnoresOwner?: boolean;
  /** The fencing token is a per-owner counter instead of the revision. */
  readonly perOwnerTokens?: boolean;
}

function simulate({ ttl, calls }: { ttl: number; calls: readonly Call[] }, faults: ServerFaults = {}): RecordedOp[] {
  let held: { owner: string; expiresAt: number } | undefined;
  let revision = 0;
  const perOwner = new Map<string, number>();
  const order = calls
    .map((call, index) => ({ call, index, at: call.sentAt + call.at * call.latency }))
    .sort((a, b) => a.at - b.at || a.index - b.index);

  const history: RecordedOp[] = new Array(calls.length);
  for (const { call, index, at } of order) {
    if (held !== undefined && held.expiresAt <= at) held = undefined;
    const owner = OWNERS[call.owner] as string;
    const to = OWNERS[call.to] as string;
    const effective = !call.throws || call.applied;
    const put = (newOwner: string): string => {
      if (effective) held = { owner: newOwner, expiresAt: at + ttl + call.slack - (faults.expireEarlyBy ?? 0) };
      revision += 1;
      const own = (perOwner.get(newOwner) ?? 0) + 1;
      perOwner.set(newOwner, own);
      return String(faults.perOwnerTokens === true ? own : revision);
    };

    let ok: boolean;
    let token: string | undefined;
    switch (call.op) {
      case 'acquire':
        ok = held === undefined || held.owner === owner;
        if (ok) token = put(owner);
        break;
      case 'renew':
        ok = held !== undefined && (held.owner === owner || faults.renewIgnoresOwner === true);
        if (ok) token = put(owner);
        break;
      case 'release':
        if (held?.owner === owner && effective) held = undefined;
        ok = true;
        break;
      case 'transfer':
        // `held.owner === to`: a retry of a transfer that already committed; it refreshes `to`.
        ok = held !== undefined && (held.owner === owner || held.owner === to);
        if (ok) token = put(to);
        break;
    }
    history[index] = {
      client: owner,
      key: 'k',
      owner,
      op: call.op,
      ...(call.op === 'transfer' ? { toOwner: to } : {}),
      ttlMs: ttl,
      sentAt: call.sentAt,
      returnedAt: call.sentAt + call.latency,
      outcome: call.throws ? 'error' : ok ? 'ok' : 'lost',
      ...(token !== undefined && !call.throws ? { fencingToken: token } : {}),
    };
  }
  return history;
}

describe('checkers against a correct provider', () => {
  it('never report overlapping beliefs, whatever the timing, retries, errors or late expiry', () => {
    fc.assert(
      fc.property(arbRun, (run) => {
        expect(checkOverlaps(simulate(run))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  }, 30_000);

  it('never report a fencing-token regression', () => {
    fc.assert(
      fc.property(arbRun, (run) => {
        expect(checkFencingMonotonic(simulate(run))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  }, 30_000);
});

describe('checkers against a broken provider (the same generator finds a counterexample)', () => {
  const findsViolation = (flags: (history: RecordedOp[]) => boolean, faults: ServerFaults): boolean =>
    fc.check(
      fc.property(arbRun, (run) => !flags(simulate(run, faults))),
      { numRuns: 2000, seed: 42 },
    ).failed;

  it('a provider that expires leases before ttl is caught by the overlap check', () => {
    // 12 ms early: more than the largest late-expiry slack, so the lease always ends before ttl.
    expect(findsViolation((h) => checkOverlaps(h).length > 0, { expireEarlyBy: 12 })).toBe(true);
  }, 30_000);

  it('a provider whose renew does not compare the owner is caught by the overlap check', () => {
    expect(findsViolation((h) => checkOverlaps(h).length > 0, { renewIgnoresOwner: true })).toBe(true);
  }, 30_000);

  it('a provider that issues per-owner instead of global tokens is caught by the fencing check', () => {
    expect(findsViolation((h) => checkFencingMonotonic(h).length > 0, { perOwnerTokens: true })).toBe(true);
  }, 30_000);
});
