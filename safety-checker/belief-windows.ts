import type { BeliefEnd, BeliefWindow, History, RecordedOp } from './types.js';
import { validateHistory } from './validate.js';

/**
 * Belief windows (docs/design.md#belief-windows): when each owner was entitled to believe it held each key.
 *
 * A window opens when a successful acquire, renew, or transfer-to-the-owner RETURNS: the
 * holder cannot act on a grant it has not heard of yet. Counting a renew (not only
 * acquire/transfer) matters: a renew that returns `true` after the lease had already
 * lapsed tells its caller "you own it", and a provider that says so while another owner
 * holds the key must be caught.
 *
 * While open, the window lasts until (SEND time of the latest-sent successful refresh) + its
 * ttlMs. The send time is the conservative choice: etcd applied the write at some unknown
 * point after it was sent, so the server-side lease runs at least that long, and the
 * holder cannot know it runs longer. It closes earlier when the owner
 * - sends a release (any outcome: from that moment it no longer acts as owner),
 * - sends a transfer away from itself (any outcome, same reason),
 * - hears `lost` from an acquire or renew (at the return: that is when it learns).
 * An `error` never opens, refreshes or closes a window: the holder cannot know whether
 * the write took effect, so it may not count on it.
 *
 * Two refinements keep a correct provider from being flagged (correct-provider.test.ts
 * checks this against a simulated linearizable server):
 * - a grant whose call was in flight at the same time as one of the owner's own
 *   releases/transfers-away is ignored: the client cannot know which of the two etcd
 *   applied last, so it may not believe the grant (the key may rightly be someone else's);
 * - a grant that returns at or after its own send time + ttl is ignored: it gives no
 *   belief, and it may date from an earlier tenure of the owner.
 *
 * Assumes an owner uses one ttlMs per key. With mixed TTLs an errored renew could have
 * shortened the server-side lease without the holder knowing, which no history can show.
 */
export function deriveBeliefWindows(history: History): BeliefWindow[] {
  validateHistory(history);
  const windows: BeliefWindow[] = [];
  for (const [key, owners] of eventsByKeyAndOwner(history)) {
    for (const [owner, events] of owners) {
      windows.push(...windowsOfOwner(key, owner, events));
    }
  }
  return windows.sort(byKeyThenStart);
}

/** A successful call that makes `owner` believe it holds the key until `deadline`. */
interface Grant {
  readonly op: RecordedOp;
  readonly sentAt: number;
  readonly returnedAt: number;
  readonly deadline: number;
}

/** A moment at which the owner stops believing. */
interface Cut {
  readonly at: number;
  readonly reason: Exclude<BeliefEnd, 'ttl'>;
}

interface OwnerEvents {
  readonly grants: Grant[];
  readonly cuts: Cut[];
  /** Releases and transfers away sent by the owner; grants concurrent with one are void. */
  readonly giveUps: RecordedOp[];
}

function eventsByKeyAndOwner(history: History): Map<string, Map<string, OwnerEvents>> {
  const byKey = new Map<string, Map<string, OwnerEvents>>();
  const eventsOf = (key: string, owner: string): OwnerEvents => {
    let owners = byKey.get(key);
    if (owners === undefined) byKey.set(key, (owners = new Map()));
    let events = owners.get(owner);
    if (events === undefined) owners.set(owner, (events = { grants: [], cuts: [], giveUps: [] }));
    return events;
  };

  for (const op of history) {
    switch (op.op) {
      case 'acquire':
      case 'renew': {
        const events = eventsOf(op.key, op.owner);
        if (op.outcome === 'ok') events.grants.push(grantOf(op));
        else if (op.outcome === 'lost') events.cuts.push({ at: op.returnedAt, reason: 'lost' });
        break;
      }
      case 'release': {
        const events = eventsOf(op.key, op.owner);
        events.cuts.push({ at: op.sentAt, reason: 'release' });
        events.giveUps.push(op);
        break;
      }
      case 'transfer': {
        const from = eventsOf(op.key, op.owner);
        from.cuts.push({ at: op.sentAt, reason: 'transfer' });
        from.giveUps.push(op);
        // validateHistory guarantees toOwner on transfers.
        if (op.outcome === 'ok') eventsOf(op.key, op.toOwner as string).grants.push(grantOf(op));
        break;
      }
    }
  }
  return byKey;
}

function grantOf(op: RecordedOp): Grant {
  return { op, sentAt: op.sentAt, returnedAt: op.returnedAt, deadline: op.sentAt + op.ttlMs };
}

/**
 * Flights overlap. Touching counts, both ways: a give-up that returned at the reading the
 * grant was sent is not known to have been applied first, and a give-up sent at the reading
 * the grant returned leaves no instant of belief anyway. Only a give-up that returned
 * strictly before the grant was sent was surely applied first, so that grant (a fresh
 * acquire) stands.
 */
function concurrent(giveUp: RecordedOp, grant: Grant): boolean {
  return giveUp.sentAt <= grant.returnedAt && giveUp.returnedAt >= grant.sentAt;
}

type Step = { readonly at: number; readonly cut: Cut } | { readonly at: number; readonly grant: Grant };

function windowsOfOwner(key: string, owner: string, events: OwnerEvents): BeliefWindow[] {
  const steps: Step[] = [
    ...events.cuts.map((cut) => ({ at: cut.at, cut })),
    ...events.grants
      // Filed under the window open at its return, such a grant's token could wrongly
      // look like a regression against an owner that held the key in between.
      .filter((grant) => grant.deadline > grant.returnedAt)
      .filter((grant) => !events.giveUps.some((giveUp) => concurrent(giveUp, grant)))
      .map((grant) => ({ at: grant.returnedAt, grant })),
  ];
  // On equal times apply cuts first, so a grant returning at the instant a `lost` returns
  // still opens a window: the stricter reading. (A give-up sent at a grant's return has
  // already voided the grant above.)
  steps.sort((a, b) => a.at - b.at || Number('grant' in a) - Number('grant' in b));

  const windows: BeliefWindow[] = [];
  let open: { start: number; deadline: number; deadlineSentAt: number; grants: RecordedOp[] } | undefined;
  const close = (end: number, endedBy: BeliefEnd): void => {
    if (open !== undefined && end > open.start) {
      windows.push({ key, owner, start: open.start, end, endedBy, grants: open.grants });
    }
    open = undefined;
  };

  for (const step of steps) {
    if (open !== undefined && open.deadline <= step.at) close(open.deadline, 'ttl');
    if ('cut' in step) {
      if (open !== undefined) close(step.at, step.cut.reason);
      continue;
    }
    const { grant } = step;
    if (open === undefined) {
      open = { start: grant.returnedAt, deadline: grant.deadline, deadlineSentAt: grant.sentAt, grants: [grant.op] };
      continue;
    }
    open.grants.push(grant.op);
    // Each successful put replaces the lease, so the most recently SENT refresh sets the
    // deadline (not the largest deadline: a later renew with a shorter TTL shortens it).
    if (grant.sentAt > open.deadlineSentAt || (grant.sentAt === open.deadlineSentAt && grant.deadline < open.deadline)) {
      open.deadline = grant.deadline;
      open.deadlineSentAt = grant.sentAt;
    }
  }
  if (open !== undefined) close(open.deadline, 'ttl');
  return windows;
}

function byKeyThenStart(a: BeliefWindow, b: BeliefWindow): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.start - b.start || a.end - b.end;
}
