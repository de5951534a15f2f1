import { keyAbsent, modIs, put, putKeepingLease, rangeValue, read, type TxnOutcome, type TxnRequest } from '../../operations/etcd-txn.js';

/** What a group's claim of one event says. */
export interface ClaimValue {
  /** The member holding (or last holding) the event. */
  m: string;
  /** Delivery attempt of that holding, from 1. */
  a: number;
  /** held: being handled by `m`; retry: nacked, to be offered again; done: acked (or dropped at the attempt cap). */
  s: 'held' | 'retry' | 'done';
  /** Wall-clock ms of the write (for logs and the ack deadline). */
  t: number;
  /** Set when the event was given up on after its last attempt. */
  dropped?: true;
  /**
   * On a `retry`: written by the holder itself when its handler neither acked nor nacked within the in-flight
   * timeout. The next attempt then goes to another member when there is one (group-state.ts).
   */
  expired?: true;
  /** The group's floor (group-checkpoint.ts) when above 0: every key of a group carries it, so a rejoin finds it. */
  f?: string;
}

export function encodeClaim(value: ClaimValue): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

export function decodeClaim(bytes: Buffer): ClaimValue | undefined {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as Partial<ClaimValue>;
    if (typeof v.m !== 'string' || typeof v.a !== 'number' || (v.s !== 'held' && v.s !== 'retry' && v.s !== 'done')) return undefined;
    return {
      m: v.m,
      a: v.a,
      s: v.s,
      t: typeof v.t === 'number' ? v.t : 0,
      ...(v.dropped ? { dropped: true as const } : {}),
      ...(v.expired ? { expired: true as const } : {}),
      ...(typeof v.f === 'string' && /^[0-9]+$/.test(v.f) ? { f: v.f } : {}),
    };
  } catch {
    return undefined;
  }
}

interface ClaimRequest {
  claimKey: Buffer;
  eventKey: Buffer;
  /** Mod revision of the event as this member saw it. */
  eventRevision: string;
  /** Mod revision of the claim being taken over (retry, dead or orphaned holder); undefined for a first claim. */
  claimRevision?: string;
  value: ClaimValue;
  /** The event's own etcd lease: claim and event expire together, in one revoke. */
  lease: string;
}

/**
 * Take an event for this member:
 *
 *   If (CREATE(claim) = 0            -- first claim; or MOD(claim) = seen, to take over a claim seen in that state
 *       AND MOD(event) = seen)       -- the event still exists, so its lease does too
 *   Then put(claim, value, lease = the event's lease)
 *   Else range(claim)                -- the loser learns the holder in the same round trip
 *
 * Exactly one of several members claiming at once wins: each compares the state it saw, and the first write
 * changes it. The event compare is what makes naming the event's lease safe: a put naming a lease etcd no longer
 * knows fails the *whole* group-commit transaction, other callers included, and an existing event implies its lease
 * exists (a revoke deletes its keys in the same entry), so with the event gone the branch is simply not taken.
 * Idempotence: a resend after an ambiguous failure that had committed finds the claim changed and reads it — the
 * caller recognises its own write by member and attempt.
 */
export function claimTxn(request: ClaimRequest): TxnRequest {
  const claimCompare = request.claimRevision === undefined ? keyAbsent(request.claimKey) : modIs(request.claimKey, request.claimRevision);
  return {
    compare: [claimCompare, modIs(request.eventKey, request.eventRevision)],
    success: [put(request.claimKey, encodeClaim(request.value), request.lease)],
    failure: [read(request.claimKey)],
  };
}

type ClaimOutcome =
  | { won: true; revision: string }
  | { won: false; holder?: { value: ClaimValue; revision: string } };

export function decodeClaimOutcome(outcome: TxnOutcome, mine: ClaimValue): ClaimOutcome {
  if (outcome.succeeded) return { won: true, revision: outcome.revision };
  const kv = rangeValue(outcome);
  const value = kv ? decodeClaim(kv.value) : undefined;
  if (!kv || !value) return { won: false };
  // Our own earlier attempt of this very claim committed and only its answer was lost.
  if (value.m === mine.m && value.a === mine.a && value.s === 'held' && value.t === mine.t) return { won: true, revision: kv.mod_revision };
  return { won: false, holder: { value, revision: kv.mod_revision } };
}

/**
 * Ack or nack: `If MOD(claim) = my claim's revision Then put(claim, value)` keeping the claim on the event's lease.
 * After a takeover the revision differs and a late ack changes nothing. Idempotent: a resend after a committed first
 * attempt finds the revision moved and does nothing (the caller accepts that as settled, see `settled`).
 */
export function settleTxn(claimKey: Buffer, claimRevision: string, value: ClaimValue): TxnRequest {
  return {
    compare: [modIs(claimKey, claimRevision)],
    success: [putKeepingLease(claimKey, encodeClaim(value))],
    failure: [read(claimKey)],
  };
}

/**
 * Settled when written now, or when the claim already carries exactly this value (an earlier attempt wrote it); with
 * the claim's revision, so that the member knows its own write before the watch brings it. Otherwise the claim it
 * found (a takeover).
 */
export function decodeSettle(outcome: TxnOutcome, value: ClaimValue): SettleOutcome {
  if (outcome.succeeded) return { settled: true, revision: outcome.revision };
  const kv = rangeValue(outcome);
  const stored = kv ? decodeClaim(kv.value) : undefined;
  if (!kv || !stored) return { settled: false };
  if (stored.m === value.m && stored.a === value.a && stored.s === value.s && stored.t === value.t) return { settled: true, revision: kv.mod_revision };
  return { settled: false, holder: { value: stored, revision: kv.mod_revision } };
}

type SettleOutcome = { settled: true; revision: string } | { settled: false; holder?: { value: ClaimValue; revision: string } };
