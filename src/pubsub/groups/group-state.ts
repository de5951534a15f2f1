import type { KeyValue } from '../../operations/etcd-txn.js';
import type { TopicEntry } from '../keys/event-keys.js';
import { preferredMember } from './assignment.js';
import { decodeClaim, type ClaimValue } from './claim-txns.js';

interface GroupEvent {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly revision: string;
  /** Its create revision: with the key, its place in topic order (a later write of the event keeps it). */
  readonly created: bigint;
  readonly lease: string;
  /** When this member first saw it (ms, the consumer's clock). */
  readonly seenAt: number;
}

interface GroupClaim extends ClaimValue {
  readonly revision: string;
  readonly seenAt: number;
}

export type MemberState = 'active' | 'leaving';

export type ClaimReason = 'new' | 'retry' | 'member-lost' | 'orphan' | 'in-flight-timeout';

export type Decision =
  /** Nothing to do for this event (gone, done, held by a live member, before our start). */
  | { kind: 'ignore' }
  /** This member cannot claim now (not registered, or at its in-flight limit); look again when that changes. */
  | { kind: 'blocked' }
  /** Look again at `until` (a retry not due yet, or another member is preferred and has until then). */
  | { kind: 'wait'; until: number }
  | { kind: 'claim'; reason: ClaimReason; attempt: number; claimRevision: string | undefined };

export interface DecideContext {
  now: number;
  /** Events this member is handling or claiming right now. */
  busy: { has(id: string): boolean };
  /** Registered (its member key is live) and under its in-flight limit. */
  canClaim: boolean;
  claimTimeoutMs: number;
  redeliveryDelayMs: number;
}

/**
 * What one member knows about one consumer group of one topic — events, claims, members — built from one watch over
 * the topic, and the pure rule for who takes what:
 *
 * - an event is claimable when it has no claim, when its claim was nacked (after the redelivery delay), when its
 *   holder gave it up after its in-flight timeout (at once), when its holder's member key is gone (dead consumer), or
 *   when it is held by this member but not being handled here (left over from a lost session);
 * - the preferred member (rendezvous hashing over the active members) claims at once; the others wait
 *   `claimTimeoutMs` and claim only if nobody has by then (the preferred one may be alive to etcd but stuck). An
 *   event its holder gave up after the in-flight timeout prefers the other members: its holder takes it back only
 *   when it is the only active member (or, as any non-preferred member, after `claimTimeoutMs`).
 */
export class GroupState {
  readonly events = new Map<string, GroupEvent>();
  readonly claims = new Map<string, GroupClaim>();
  readonly members = new Map<string, MemberState>();
  /** The topic's groups whose work waits for them (backlog keys), each with its key's create revision. */
  readonly backlogs = new Map<string, string>();
  /** When members were seen leaving (their keys deleted), for the fallback timer of their claims. */
  private readonly departed = new Map<string, number>();

  /**
   * @param floor events created at or below this revision are not this member's concern (startFrom 'latest');
   *              '0' for 'earliest'
   */
  constructor(
    readonly group: string,
    readonly me: string,
    private readonly floor: bigint,
  ) {}

  /**
   * Applies one change seen under the topic; returns the events whose decision may have changed, or 'all' after a
   * membership change.
   */
  apply(entry: TopicEntry, change: 'put' | 'delete', kv: KeyValue, now: number): string[] | 'all' {
    switch (entry.kind) {
      case 'event':
        if (change === 'delete') {
          this.events.delete(entry.id);
          this.claims.delete(entry.id); // on the same lease: gone in the same revoke, or by clearTopic
          return [entry.id];
        }
        if (BigInt(kv.create_revision) <= this.floor || this.claims.get(entry.id)?.s === 'done') return [];
        if (!this.events.has(entry.id)) {
          this.events.set(entry.id, { key: kv.key, value: kv.value, revision: kv.mod_revision, created: BigInt(kv.create_revision), lease: kv.lease, seenAt: now });
        }
        return [entry.id];
      case 'claim': {
        if (entry.group !== this.group) return [];
        if (change === 'delete') {
          this.claims.delete(entry.id);
          return [entry.id];
        }
        const value = decodeClaim(kv.value);
        if (!value) return [];
        return this.noteClaim(entry.id, value, kv.mod_revision, now) ? [entry.id] : [];
      }
      case 'backlog':
        if (change === 'delete') this.backlogs.delete(entry.group);
        else this.backlogs.set(entry.group, kv.create_revision);
        return [];
      case 'member': {
        if (entry.group !== this.group) return [];
        if (change === 'delete') {
          this.members.delete(entry.member);
          this.departed.set(entry.member, now);
        } else {
          this.members.set(entry.member, decodeMember(kv.value).state);
          this.departed.delete(entry.member);
        }
        return 'all';
      }
    }
  }

  /**
   * Records a claim as of `revision` unless a newer one is known — from the watch, or from the read in a lost claim
   * transaction, which may come before the watch tells. False when it changed nothing.
   */
  noteClaim(id: string, value: ClaimValue, revision: string, now: number): boolean {
    const known = this.claims.get(id);
    if (known && BigInt(known.revision) >= BigInt(revision)) return false;
    this.claims.set(id, { ...value, revision, seenAt: now });
    // A finished event needs nothing more from this member: keep only its claim, which is small.
    if (value.s === 'done') this.events.delete(id);
    return true;
  }

  /**
   * The create revision of this group's backlog key when it is the topic's only group as far as this member knows:
   * then an event this group finished waits for nobody (backlog.ts).
   */
  onlyBacklog(): string | undefined {
    return this.backlogs.size === 1 ? this.backlogs.get(this.group) : undefined;
  }

  /** Members that take new events (not leaving). */
  activeMembers(): string[] {
    return [...this.members].filter(([, state]) => state === 'active').map(([member]) => member);
  }

  decide(id: string, context: DecideContext): Decision {
    const event = this.events.get(id);
    if (!event) return { kind: 'ignore' };
    const claimable = this.claimable(id, event, context);
    if (!claimable) return { kind: 'ignore' };
    if (!context.canClaim) return { kind: 'blocked' };
    if (context.now < claimable.since) return { kind: 'wait', until: claimable.since };
    const active = this.activeMembers();
    const others = active.filter((m) => m !== claimable.exclude);
    const pool = others.length > 0 ? others : active;
    // This member counts even before its own registration shows in `members`, unless it is the one to avoid.
    const mayPrefer = !pool.includes(this.me) && (this.me !== claimable.exclude || others.length === 0);
    const preferred = preferredMember(mayPrefer ? [...pool, this.me] : pool, id);
    const claim = { kind: 'claim' as const, reason: claimable.reason, attempt: claimable.attempt, claimRevision: claimable.claimRevision };
    if (preferred === this.me) return claim;
    const fallbackAt = claimable.since + context.claimTimeoutMs;
    return context.now >= fallbackAt ? claim : { kind: 'wait', until: fallbackAt };
  }

  /**
   * Every event this member knows of, in topic order (publish order): looked at in that order, claims start in it, so
   * a member alone in its group gets its backlog as it was published. A member at its limit still takes its own share
   * first: an event another member is preferred for only waits, it takes no capacity.
   */
  eventIds(): string[] {
    return this.inTopicOrder(this.events.keys());
  }

  /** `ids` in topic order: by the events' creation, then key (one batch); ids of events no longer known last. */
  inTopicOrder(ids: Iterable<string>): string[] {
    const place = (id: string) => this.events.get(id);
    return [...ids].sort((a, b) => {
      const x = place(a);
      const y = place(b);
      if (!x || !y) return x ? -1 : y ? 1 : 0;
      if (x.created !== y.created) return x.created < y.created ? -1 : 1;
      return Buffer.compare(x.key, y.key);
    });
  }

  private claimable(
    id: string,
    event: GroupEvent,
    context: DecideContext,
  ): { since: number; reason: ClaimReason; attempt: number; claimRevision: string | undefined; exclude?: string } | undefined {
    const claim = this.claims.get(id);
    if (!claim) return { since: event.seenAt, reason: 'new', attempt: 1, claimRevision: undefined };
    const next = { attempt: claim.a + 1, claimRevision: claim.revision };
    switch (claim.s) {
      case 'done':
        return undefined;
      case 'retry':
        // Given up by its holder after the in-flight timeout: that wait is over, so at once, and preferably elsewhere.
        if (claim.expired) return { ...next, since: claim.seenAt, reason: 'in-flight-timeout', exclude: claim.m };
        return { ...next, since: claim.seenAt + context.redeliveryDelayMs * claim.a, reason: 'retry' };
      case 'held':
        if (claim.m === this.me) return context.busy.has(id) ? undefined : { ...next, since: claim.seenAt, reason: 'orphan' };
        if (!this.members.has(claim.m)) return { ...next, since: Math.max(claim.seenAt, this.departed.get(claim.m) ?? 0), reason: 'member-lost' };
        return undefined; // a live member's: its own in-flight timeout gives it up (group-consumer.ts)
    }
  }
}

/** A member key's value: its state, and the group's floor (group-checkpoint.ts) when above 0. */
export function encodeMemberState(state: MemberState, floor = '0'): Buffer {
  return Buffer.from(JSON.stringify(floor === '0' ? { state } : { state, floor }), 'utf8');
}

export function decodeMember(value: Buffer): { state: MemberState; floor?: string } {
  try {
    const v = JSON.parse(value.toString('utf8')) as { state?: unknown; floor?: unknown };
    const state = v.state === 'leaving' ? 'leaving' : 'active';
    return typeof v.floor === 'string' && /^[0-9]+$/.test(v.floor) ? { state, floor: v.floor } : { state };
  } catch {
    return { state: 'active' };
  }
}
