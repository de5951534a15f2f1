import { setMaxListeners } from 'node:events';
import type { Event, EventCallback } from '@mastra/core/events';
import { EtcdLeaseInvalidError, type IEvent } from 'etcd3';
import type { LeaseLogger } from '../../config/options.js';
import { ProviderClosedError } from '../../errors/closed.js';
import { EtcdCompactedError } from '../../errors/compacted.js';
import { AckRefusedError, type AckRefusedReason } from '../../errors/ack-refused.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import { LeasedWrites } from '../../leases/leased-writes.js';
import type { PubSubInstruments, RedeliveryReason } from '../../metrics/instruments.js';
import { POLICY } from '../../policy.js';
import { put, remove, type KeyValue, type TxnRequest } from '../../operations/etcd-txn.js';
import type { CallScope } from '../../transport/call-scope.js';
import type { AttemptContext } from '../../transport/call-runner.js';
import type { LeasePool } from '../../leases/lease-pool.js';
import { parseTopicEntry, type EventKeys } from '../keys/event-keys.js';
import type { ResolvedEventOptions } from '../resolve-options.js';
import { handled, type CallbackWithExtend } from '../deliver/local-delivery.js';
import { retryForever } from '../watch/retry-forever.js';
import type { Watch, WatchStream } from '../watch/watch-stream.js';
import { claimTxn, decodeClaimOutcome, decodeSettle, settleTxn, type ClaimValue } from './claim-txns.js';
import { encodeBacklog, finishTxn } from './backlog.js';
import { joinFloor } from './group-checkpoint.js';
import { preferredMember } from './assignment.js';
import { readGroupSnapshot } from './group-snapshot.js';
import { encodeMemberState, GroupState, type ClaimReason, type Decision, type MemberState } from './group-state.js';
import type { Session } from './session.js';

interface GroupConsumerDeps {
  core: EtcdCore;
  stream: WatchStream;
  session: Session;
  keys: EventKeys;
  topic: string;
  group: string;
  /** This consumer's member id (unique per consumer instance). */
  me: string;
  startFrom: 'earliest' | 'latest';
  options: Pick<
    ResolvedEventOptions,
    'claimTimeoutMs' | 'redeliveryDelayMs' | 'inFlightTimeoutMs' | 'maxInFlightPerGroup' | 'maxDeliveryAttempts' | 'maxReplayBytes' | 'retentionMs' | 'groupBacklogMs'
  >;
  /** Leases of the group's backlog key (backlog.ts), and of finished events moved back to retention. */
  backlogPool: LeasePool;
  retentionPool: LeasePool;
  logger: LeaseLogger;
  instruments: PubSubInstruments;
  decode(value: Buffer): Event | undefined;
}

/** An event this member claimed and handed to a callback, until it is acked or nacked (or its in-flight timeout). */
interface Handling {
  readonly claimKey: Buffer;
  readonly revision: string;
  readonly attempt: number;
  /** Wall-clock ms of its publish (the event's `createdAt`), once decoded. */
  publishedAt?: number;
  /** The callback it was handed to. */
  callback?: EventCallback;
  /** Fires the in-flight timeout. */
  timer?: NodeJS.Timeout;
  /** How it was settled first, once it is: the handler's ack or nack, or this member on its behalf (`expire`). */
  settledAs?: SettledAs;
  /** The settle's write, once started: how etcd answered it (see `SettleResult`). */
  settling?: Promise<SettleResult>;
}

/**
 * How a settle's write ended: `written` — etcd took it; `taken` — another member had claimed the event, and `gone` —
 * the claim had expired with its event, so it changed nothing; `stopped` — this member stopped before etcd answered.
 */
type SettleResult = 'written' | 'taken' | 'gone' | 'stopped';
type SettledAs = 'ack' | 'nack' | 'expire' | 'release';

/** Why an ack is refused: the delivery was settled otherwise before it, or its write found the claim not ours. */
const REFUSED_AFTER: Partial<Record<SettledAs, AckRefusedReason>> = { nack: 'nacked', expire: 'timed-out' };
const REFUSED_WHEN: Partial<Record<SettleResult, AckRefusedReason>> = { taken: 'taken-over', gone: 'expired' };

/**
 * This process's member of one consumer group on one topic (all local callbacks of the group share it, served
 * round-robin). It registers a member key on the process's session lease, follows the topic's events, claims and
 * members through one watch, and claims what group-state.ts says is its to take (see there and claim-txns.ts for the
 * rules and the transactions). A claimed event goes to one local callback with `deliveryAttempt` = the claim's
 * attempt; ack/nack are compare-on-revision writes, so a late one after a takeover changes nothing. A delivery left
 * unsettled for `inFlightTimeoutMs` is given up on the handler's behalf (`expire`). Where a join starts is the
 * group's, not the joiner's (group-checkpoint.ts).
 */
export class GroupConsumer {
  private readonly callbacks: EventCallback[] = [];
  private nextCallback = 0;
  private state: GroupState;
  private watch: Watch | undefined;
  private buffer: IEvent[] | undefined;
  private readonly handling = new Map<string, Handling>();
  private readonly attempting = new Set<string>();
  private readonly blocked = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly settling = new Set<Promise<void>>();
  /** Claims in flight, in the order they started (inClaimOrder). */
  private readonly claimOrder: Array<{ handOut?: () => void; ready: boolean }> = [];
  /**
   * The place in claimOrder of a claim that failed with an error and waits to be tried again: the retry keeps it, so
   * the claims started after it (which may well succeed first) still wait for it. Given up (skipped) when the event
   * is no longer this member's to claim.
   */
  private readonly heldTurns = new Map<string, ClaimTurn>();
  private readonly topicPrefix: Buffer;
  private readonly memberKey: Buffer;
  private readonly backlogKey: Buffer;
  private backlogTimer: NodeJS.Timeout | undefined;
  /** Session lease the member key is on; undefined while not registered (not claiming). */
  private registeredOn: string | undefined;
  /** The group's floor (group-checkpoint.ts): events created at or below it are not the group's. Fixed at the join. */
  private floor: string | undefined;
  private leaving = false;
  private stopped = false;
  private readonly stopController = new AbortController();
  /**
   * The claims in flight, which `stop` ends. Tracked here rather than by each listening on the stop signal: a burst of
   * claims (up to `maxInFlightPerGroup` at once) would put as many listeners on one AbortSignal, which Node 20 reports
   * as a leak (MaxListenersExceededWarning) past 10.
   */
  private readonly claims = new Set<CallScope>();
  private readonly unlisten: () => void;
  /** Member keys are written on the session's lease. */
  private readonly writes: LeasedWrites;

  constructor(private readonly deps: GroupConsumerDeps) {
    this.writes = new LeasedWrites(deps.core.committer, deps.session);
    // Claims do not listen on the stop signal (see `claims`); what does — the background retries of writes that
    // failed while etcd was away — may be many at once after an outage, which is expected, not a leak.
    setMaxListeners(0, this.stopController.signal);
    this.topicPrefix = deps.keys.topic(deps.topic);
    this.memberKey = deps.keys.member(deps.topic, deps.group, deps.me);
    this.backlogKey = deps.keys.backlog(deps.topic, deps.group);
    this.state = new GroupState(deps.group, deps.me, 0n);
    this.unlisten = deps.session.listen({
      lost: () => {
        this.registeredOn = undefined;
      },
      // A leaving member is not registered again: it would come back as an active member (preferred for new events
      // it never claims) until its leave ends. Its member key went with the lost session, as a finished leave's does.
      renewed: () => {
        if (!this.leaving) void this.recover('register', (scope) => this.register(scope, 'active'));
      },
    });
  }

  get size(): number {
    return this.callbacks.length;
  }

  /**
   * Joins the group (watch, current state, then the member key, which carries the floor the state decided) and
   * resolves once this member takes events.
   */
  async start(cb: EventCallback, scope: CallScope): Promise<void> {
    this.callbacks.push(cb);
    try {
      await this.sync(scope);
      await this.register(scope, 'active');
    } catch (error) {
      this.stop();
      throw error;
    }
    this.evaluateAll();
  }

  add(cb: EventCallback): void {
    this.callbacks.push(cb);
  }

  /** Removes a callback; returns how many remain. */
  remove(cb: EventCallback): number {
    const index = this.callbacks.indexOf(cb);
    if (index >= 0) this.callbacks.splice(index, 1);
    return this.callbacks.length;
  }

  /**
   * Leaves the group: marked `leaving` at once (no longer preferred, claims nothing more), its member key deleted
   * once the events it holds are acked or nacked (at most `deadlineMs`), so survivors do not take over work it is
   * finishing. Resolves once it is marked.
   */
  async leave(deadlineMs: number): Promise<void> {
    if (this.leaving) return;
    this.leaving = true;
    this.stopWatching();
    const scope = this.deps.core.runner.open('unsubscribe', this.deps.core.budget(deadlineMs));
    try {
      if (this.registeredOn) await this.register(scope, 'leaving');
    } catch (error) {
      this.deps.logger.debug?.('could not mark a group member as leaving', { error });
    } finally {
      scope.dispose();
    }
    void this.finishLeaving(deadlineMs);
  }

  /** Waits for pending ack/nack writes, at most `deadlineMs`. */
  async flush(deadlineMs: number): Promise<void> {
    if (this.settling.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.settling]), new Promise((r) => (timer = setTimeout(r, deadlineMs)))]);
    clearTimeout(timer);
  }

  /** Stops everything at once (close): the session revoke removes the member key. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.backlogTimer);
    this.leaving = true;
    this.stopWatching();
    this.stopController.abort();
    for (const scope of this.claims) scope.stop(this.stopController.signal.reason);
    this.claims.clear();
    this.unlisten();
  }

  // ── membership and state ──

  private async register(scope: CallScope, state: MemberState): Promise<void> {
    const { core, session } = this.deps;
    const value = encodeMemberState(state, this.floor);
    await core.runner.attempts(scope, async (attempt) => {
      const lease = await this.writes.granted(session.lease(scope), attempt);
      const success = [put(this.memberKey, value, lease)];
      // An active member also says, in the same write, that the group's work waits for it (backlog.ts).
      const backlog = state === 'active' ? await this.writes.granted(this.backlogLease(), attempt) : undefined;
      if (backlog) success.push(put(this.backlogKey, encodeBacklog(this.floor), backlog.id));
      try {
        await this.writes.commit(this.memberKey, { compare: [], success, failure: [] }, attempt, lease);
      } catch (error) {
        if (backlog && error instanceof EtcdLeaseInvalidError) this.deps.backlogPool.invalidate(backlog.id);
        throw error;
      }
      if (state === 'active' && !this.leaving) this.registeredOn = lease;
    });
    if (state === 'active') {
      this.renewBacklogLater();
      this.evaluateAll();
    }
  }

  /** A backlog lease that lasts `groupBacklogMs` from now. */
  private backlogLease() {
    return this.deps.backlogPool.leaseFor(this.deps.options.groupBacklogMs, this.deps.core.clock.moment());
  }

  /**
   * The backlog key lasts `groupBacklogMs` from its last write: a live member writes it again every quarter of that,
   * so that it lapses only once the group has had no member for the whole bound.
   */
  private renewBacklogLater(): void {
    clearTimeout(this.backlogTimer);
    this.backlogTimer = setTimeout(() => {
      if (this.leaving || this.stopped || !this.registeredOn) return;
      void this.recover('register', (scope) => this.register(scope, 'active'));
    }, this.deps.options.groupBacklogMs / 4);
    this.backlogTimer.unref();
  }

  private async finishLeaving(deadlineMs: number): Promise<void> {
    const until = performance.now() + deadlineMs;
    while (this.handling.size > 0 && performance.now() < until && !this.stopped) await new Promise((r) => setTimeout(r, 50).unref());
    await this.flush(Math.max(0, until - performance.now()));
    this.stop();
    if (this.deps.core.lifetime.aborted) return;
    const { core } = this.deps;
    const scope = core.runner.open('unsubscribe', core.budget(deadlineMs));
    try {
      await core.runner.attempts(scope, (attempt) =>
        core.committer.submit(this.memberKey, { compare: [], success: [remove(this.memberKey)], failure: [] }, attempt.timeoutMs, attempt.signal),
      );
    } catch (error) {
      this.deps.logger.debug?.('could not delete a group member key; it expires with the session', { error });
    } finally {
      scope.dispose();
    }
  }

  /**
   * Watch the topic from now, read the group's state at the watch's revision (group-snapshot.ts), then apply what the
   * watch buffered. The first sync of a join also fixes the floor: the group's if it exists, else from `startFrom`.
   */
  private async sync(scope: CallScope): Promise<void> {
    const { core, stream, keys, topic, group, me, options, logger, instruments } = this.deps;
    for (;;) {
      this.buffer = [];
      const watch = await stream.watch({ prefix: this.topicPrefix, deletes: true }, this.handler(), scope.signal);
      if (this.stopped) return void stream.cancel(watch.id);
      let snapshot;
      try {
        snapshot = await readGroupSnapshot(core, scope, keys, { topic, group, revision: watch.createdAt, maxReplayBytes: options.maxReplayBytes });
      } catch (error) {
        stream.cancel(watch.id);
        if (error instanceof EtcdCompactedError) continue; // compacted before we read: start over
        throw error;
      }
      if (snapshot.skipped > 0) {
        instruments.dropped.add(snapshot.skipped, { reason: 'oversize-replay' });
        logger.warn?.('consumer group read larger than maxReplayBytes: the oldest retained events are skipped', { topic, group, skipped: snapshot.skipped, bytes: snapshot.skippedBytes });
      }
      // The group's backlog key carries its floor too: a group whose members all left a while ago keeps its checkpoint.
      const others = [...snapshot.members.filter((kv) => !kv.key.equals(this.memberKey)), ...snapshot.backlogs.filter((kv) => kv.key.equals(this.backlogKey))];
      this.floor ??= joinFloor(others, snapshot.claims, this.deps.startFrom, await this.joinedAt(scope, watch.createdAt));
      const state = new GroupState(group, me, BigInt(this.floor));
      const now = performance.now();
      for (const kv of snapshot.kvs) {
        const entry = parseTopicEntry(this.topicPrefix, kv.key);
        if (entry) state.apply(entry, 'put', kv, now);
      }
      // A claim this member won but the read did not include yet is kept.
      for (const [id, h] of this.handling) if (state.events.has(id)) state.noteClaim(id, { m: me, a: h.attempt, s: 'held', t: 0 }, h.revision, now);
      this.state = state;
      this.watch = watch;
      const buffered = this.buffer ?? [];
      this.buffer = undefined;
      for (const event of buffered) this.applyChange(event);
      return;
    }
  }

  private handler() {
    return {
      onEvents: (events: IEvent[]) => {
        if (this.buffer) return void this.buffer.push(...events);
        for (const event of events) this.applyChange(event);
      },
      onCanceled: (compactRevision: string | undefined, reason: string) => {
        this.watch = undefined;
        if (this.stopped || this.leaving) return;
        // Compaction passed the resume point, or the catch-up did not fit one gRPC message (the stream counted that
        // one as 'oversize' already): only the first is a compaction.
        if (compactRevision === undefined) {
          this.deps.logger.warn?.('consumer group watch ended; re-reading the topic', { topic: this.deps.topic, reason });
        } else {
          this.deps.instruments.watchResumes.add(1, { reason: 'compacted' });
          this.deps.logger.warn?.('consumer group watch lost (history compacted); re-reading the topic', { topic: this.deps.topic, compactRevision, reason });
        }
        void this.recover('subscribe', async (scope) => {
          await this.sync(scope);
          this.evaluateAll();
        });
      },
    };
  }

  private applyChange(event: IEvent): void {
    const kv = event.kv as unknown as KeyValue;
    const entry = parseTopicEntry(this.topicPrefix, kv.key);
    if (!entry) return;
    const change = event.type === 'Put' ? 'put' : 'delete';
    if (entry.kind === 'event' && change === 'delete') this.noteGone(entry.id);
    const affected = this.state.apply(entry, change, kv, performance.now());
    if (entry.kind === 'member' && entry.member === this.deps.me && change === 'delete' && this.registeredOn && !this.leaving) {
      // Our member key vanished while we thought the session alive: its lease expired. Register again on a new one.
      const lease = this.registeredOn;
      this.registeredOn = undefined;
      this.deps.session.invalidate(lease);
    }
    if (affected === 'all') this.evaluateAll();
    else for (const id of affected) this.evaluate(id);
  }

  /**
   * An event of the group's left etcd. Unfinished (the group never acked it, nor dropped it after its last attempt)
   * and older than the retention window, it expired at the backlog bound (or, published before the group was
   * there, at its retention): work the group lost, said and counted. A younger one was deleted on purpose
   * (`clearTopic`, `trimTopic`).
   */
  private noteGone(id: string): void {
    const event = this.state.events.get(id);
    // Finished, or in a handler's hands (ours: our own ack may be what deleted it, its answer not back yet; another
    // member's: it knows): not lost unseen. Counted once per group, by the member preferred for it.
    if (!event || this.handling.has(id) || this.state.claims.get(id)?.s === 'done' || this.state.claims.get(id)?.s === 'held') return;
    if (preferredMember(new Set([...this.state.activeMembers(), this.deps.me]), id) !== this.deps.me) return;
    const createdAt = this.deps.decode(event.value)?.createdAt;
    const ageMs = createdAt instanceof Date ? Date.now() - createdAt.getTime() : Number.NaN;
    if (!(ageMs >= this.deps.options.retentionMs)) return;
    const { topic, group, instruments, logger, options } = this.deps;
    instruments.dropped.add(1, { reason: 'backlog-expired' });
    logger.warn?.('grouped event expired before its group finished it', { topic, group, id, ageMs: Math.round(ageMs), groupBacklogMs: options.groupBacklogMs });
  }

  // ── deciding and claiming ──

  private evaluateAll(): void {
    for (const id of this.state.eventIds()) this.evaluate(id);
  }

  private evaluate(id: string): void {
    if (this.stopped || this.leaving || this.attempting.has(id) || this.handling.has(id)) return;
    const { options } = this.deps;
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.blocked.delete(id);
    const decision = this.state.decide(id, {
      now: performance.now(),
      busy: { has: (e) => this.attempting.has(e) || this.handling.has(e) },
      canClaim: this.registeredOn !== undefined && this.callbacks.length > 0 && this.attempting.size + this.handling.size < options.maxInFlightPerGroup,
      claimTimeoutMs: options.claimTimeoutMs,
      redeliveryDelayMs: options.redeliveryDelayMs,
    });
    this.act(id, decision);
  }

  private act(id: string, decision: Decision): void {
    if (decision.kind !== 'claim') this.giveUpTurn(id);
    switch (decision.kind) {
      case 'claim':
        return void this.claim(id, decision.reason, decision.attempt, decision.claimRevision);
      case 'wait':
        return this.later(id, decision.until - performance.now());
      case 'blocked':
        this.blocked.add(id);
        return;
      case 'ignore':
        return;
    }
  }

  private later(id: string, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(id);
      this.evaluate(id);
    }, Math.max(0, delayMs));
    timer.unref();
    this.timers.set(id, timer);
  }

  /** `avoid`: the callback whose in-flight timeout passed, when this member takes its own event back for another one. */
  private async claim(id: string, reason: ClaimReason, attempt: number, claimRevision: string | undefined, avoid?: EventCallback): Promise<void> {
    const { core, keys, topic, group, me } = this.deps;
    const event = this.state.events.get(id);
    if (!event) return this.giveUpTurn(id);
    this.attempting.add(id);
    const turn = this.heldTurns.get(id) ?? this.inClaimOrder();
    this.heldTurns.delete(id);
    let retrying = false;
    const value: ClaimValue = { m: me, a: attempt, s: 'held', t: Date.now(), ...this.floorField() };
    const claimKey = keys.claim(topic, group, id);
    const txn = claimTxn({ claimKey, eventKey: event.key, eventRevision: event.revision, claimRevision, value, lease: event.lease });
    const scope = core.runner.open('claim', core.budget(core.options.deadlineMs));
    this.claims.add(scope);
    let lost = false;
    try {
      const outcome = await core.runner.attempts(scope, async (a) => decodeClaimOutcome(await core.committer.submit(claimKey, txn, a.timeoutMs, a.signal), value));
      if (!outcome.won) {
        // The watch's news of the claim may have come (and been set aside) while this attempt was in flight, or may
        // come later: the claim read in the same transaction is current now.
        if (outcome.holder) this.state.noteClaim(id, outcome.holder.value, outcome.holder.revision, performance.now());
        lost = true;
        return;
      }
      this.state.noteClaim(id, value, outcome.revision, performance.now());
      const handling: Handling = { claimKey, revision: outcome.revision, attempt };
      this.handling.set(id, handling);
      turn.deliver(() => this.deliver(id, event.value, handling, reason, avoid));
    } catch (error) {
      if (this.stopped) return;
      this.deps.logger.debug?.('claim failed; trying again', { topic, group, error });
      // An outage or NOSPACE fails many claims at once, and their retries would come back in any order: keeping the
      // place keeps the topic's order for a member that claims alone.
      this.heldTurns.set(id, turn);
      retrying = true;
      this.later(id, POLICY.events.claimRetryMs);
    } finally {
      if (!this.handling.has(id) && !retrying) turn.skip();
      this.attempting.delete(id);
      this.claims.delete(scope);
      scope.dispose();
      if (lost) this.evaluate(id);
      // A claim that did not end in a delivery gives its slot back: what waits for capacity may go now.
      if (!this.handling.has(id)) this.unblock();
    }
  }

  private deliver(id: string, value: Buffer, handling: Handling, reason: ClaimReason, avoid?: EventCallback): void {
    const { decode, instruments, logger, topic, options } = this.deps;
    const decoded = decode(value);
    if (!decoded) {
      logger.warn?.('a grouped event could not be decoded; it is acknowledged and skipped', { topic, id });
      return void this.settle(id, handling, 'ack');
    }
    handling.publishedAt = decoded.createdAt instanceof Date ? decoded.createdAt.getTime() : undefined;
    const eligible = avoid && this.callbacks.length > 1 ? this.callbacks.filter((cb) => cb !== avoid) : this.callbacks;
    const cb = eligible.length > 0 ? eligible[this.nextCallback++ % eligible.length] : undefined;
    if (!cb) return void this.settle(id, handling, 'release');
    handling.callback = cb;
    const arm = () => {
      handling.timer = setTimeout(() => this.expire(id, handling), options.inFlightTimeoutMs);
      handling.timer.unref();
    };
    if (options.inFlightTimeoutMs > 0) arm();
    // The heartbeat of a long handler: its in-flight timeout starts over. The claim needs no write to be kept: a live
    // member's claim is taken over only when its member key goes or it gives the event up itself (group-state.ts).
    const extend = async (): Promise<void> => {
      if (handling.settledAs || !handling.timer) return;
      clearTimeout(handling.timer);
      arm();
    };
    instruments.events.add(1, { direction: 'delivered' });
    if (handling.attempt > 1) instruments.redeliveries.add(1, { reason: redeliveryReason(reason) });
    // The handler's ack and nack resolve once etcd has them, and reject when this member stops first. An ack also
    // rejects when etcd did not take it as this delivery's (AckRefusedError): it would say the event is finished while
    // the group hands it out again. A nack's promise — the event comes again — holds after a takeover or a timeout.
    // The promises count as handled (see `handled`).
    const ack = () => handled(this.confirmAck(id, handling));
    const nack = () =>
      handled(
        this.settle(id, handling, 'nack').then((result) => {
          if (result === 'stopped') throw new ProviderClosedError('nack', 'EtcdPubSub');
        }),
      );
    try {
      const result = (cb as CallbackWithExtend)({ ...decoded, deliveryAttempt: handling.attempt }, ack, nack, extend);
      if (result && typeof (result as Promise<void>).then === 'function') (result as Promise<void>).catch(() => this.settle(id, handling, 'nack'));
    } catch {
      void this.settle(id, handling, 'nack');
    }
  }

  /**
   * The handler neither acked nor nacked within `inFlightTimeoutMs`: the event is nacked on its behalf, and its own
   * late ack or nack is a no-op from here (locally, and in etcd by the claim's revision). Within the attempt cap it
   * is offered again at once as the next attempt — to another callback of this process when there is one (this
   * member takes its own claim over: one transaction against the claim's revision), else through the group: the claim
   * becomes an `expired` retry, which another member takes when there is one, or this member alone.
   */
  private expire(id: string, handling: Handling): void {
    if (handling.settledAs || this.stopped) return;
    const { options, logger, topic, group } = this.deps;
    logger.warn?.('a grouped event was neither acked nor nacked within inFlightTimeoutMs; nacked on its handler’s behalf', { topic, group, id, attempt: handling.attempt });
    const sibling = this.callbacks.some((cb) => cb !== handling.callback);
    if (!sibling || this.leaving || handling.attempt >= options.maxDeliveryAttempts) return void this.settle(id, handling, 'expire');
    handling.settledAs = 'expire';
    this.handling.delete(id);
    void this.claim(id, 'in-flight-timeout', handling.attempt + 1, handling.revision, handling.callback);
  }

  /**
   * The handler's ack: resolves only when etcd took it as this delivery's finish. Rejects with `AckRefusedError` when
   * the delivery was settled otherwise first (timed out, or nacked) or its claim was another member's by the time the
   * write arrived, and with `ProviderClosedError` when this member stopped before etcd answered.
   */
  private async confirmAck(id: string, handling: Handling): Promise<void> {
    const result = await this.settle(id, handling, 'ack');
    if (result === 'stopped') throw new ProviderClosedError('ack', 'EtcdPubSub');
    const refused = REFUSED_AFTER[handling.settledAs ?? 'ack'] ?? REFUSED_WHEN[result];
    if (refused) throw new AckRefusedError(id, refused, this.deps.topic, this.deps.group);
  }

  /**
   * Writes the outcome of a delivery. A failed write is retried in the background, and the event stays counted as
   * handled here until it lands, so it is not taken back as an orphan. Resolves once the write has been answered, or
   * when this member stopped first (never rejects); a second settle of the same delivery gets the first one's answer.
   */
  private settle(id: string, handling: Handling, how: SettledAs): Promise<SettleResult> {
    if (handling.settledAs) return handling.settling ?? Promise.resolve('written');
    handling.settledAs = how;
    clearTimeout(handling.timer);
    const { core, me, options, logger, instruments, topic } = this.deps;
    const base = { m: me, t: Date.now(), ...this.floorField() };
    let value: ClaimValue;
    if (how === 'ack') value = { ...base, a: handling.attempt, s: 'done' };
    else if (how === 'release') value = { ...base, a: handling.attempt - 1, s: 'retry' };
    else if (handling.attempt >= options.maxDeliveryAttempts) {
      value = { ...base, a: handling.attempt, s: 'done', dropped: true };
      instruments.dropped.add(1, { reason: 'max-attempts' });
      logger.warn?.('grouped event dropped after its last delivery attempt', { topic, group: this.deps.group, id, attempts: handling.attempt });
    } else value = { ...base, a: handling.attempt, s: 'retry', ...(how === 'expire' ? { expired: true as const } : {}) };
    let answered: SettleResult = 'stopped';
    const write = async (scope: CallScope) => {
      const outcome = await core.runner.attempts(scope, async (a) =>
        decodeSettle(await core.committer.submit(handling.claimKey, await this.settleWrite(id, handling, value, a), a.timeoutMs, a.signal), value),
      );
      answered = outcome.settled ? 'written' : outcome.holder ? 'taken' : 'gone';
      // What the claim is now, known before the watch brings it: without it this member would take its own finished
      // event for an orphan and claim it again, a wasted transaction that also holds the slot the ack just freed.
      const now = performance.now();
      if (outcome.settled) this.state.noteClaim(id, value, outcome.revision, now);
      else if (outcome.holder) this.state.noteClaim(id, outcome.holder.value, outcome.holder.revision, now);
    };
    const first = core.runner.open(how, core.budget());
    const firstTry = write(first).finally(() => first.dispose());
    const done = firstTry
      .catch(() => retryForever(core, how, this.stopController.signal, logger, write))
      .finally(() => {
        this.handling.delete(id);
        this.settling.delete(done);
        // The watch may have brought our own retry claim while the event still counted as handled here.
        this.evaluate(id);
        this.unblock();
      });
    this.settling.add(done);
    handling.settling = done.then(() => answered);
    return handling.settling;
  }

  /**
   * The transaction of a settle: in place (settleTxn), or, for an event finished while this group is the topic's only
   * one, one that also moves it back to retention or deletes it (backlog.ts).
   */
  private async settleWrite(id: string, handling: Handling, value: ClaimValue, attempt: AttemptContext): Promise<TxnRequest> {
    const inPlace = settleTxn(handling.claimKey, handling.revision, value);
    const backlogCreated = this.state.onlyBacklog();
    const event = this.state.events.get(id);
    if (value.s !== 'done' || backlogCreated === undefined || !event) return inPlace;
    const { retentionPool, options, keys, topic, core } = this.deps;
    const common = { claimKey: handling.claimKey, claimRevision: handling.revision, value, eventKey: event.key, backlogs: keys.backlogs(topic), backlogCreated };
    const ageMs = handling.publishedAt === undefined ? 0 : Math.max(0, Date.now() - handling.publishedAt);
    // Until its publish time + retentionMs, but a little more when that is (nearly) past: the move is what tells the
    // group's other members the event is finished, so it happens in any case.
    // (The same moment back on both lease-clock scales: the age is read from the event's own timestamp.)
    const now = core.clock.moment();
    const back = Math.min(ageMs, options.retentionMs - POLICY.events.minRetainAfterAckMs);
    const publishedAt = { at: now.at - back, steady: now.steady - back };
    const lease = await this.writes.granted(retentionPool.leaseFor(options.retentionMs, publishedAt), attempt);
    return finishTxn({ ...common, lease: lease.id });
  }

  /**
   * The revision a new group that starts from `'latest'` takes as its floor: the later of the watch's start and the
   * cluster's committed revision now. The watch's start is the revision of the member that serves the stream, which
   * may be a follower not yet caught up: an event whose publish had resolved before this subscribe was called could
   * lie above it and be taken as the new group's. A linearizable read (one count-only range) reaches every such
   * event; it is made only for a 'latest' join, once.
   */
  private async joinedAt(scope: CallScope, watchCreatedAt: string): Promise<string> {
    if (this.deps.startFrom !== 'latest') return watchCreatedAt;
    const { core } = this.deps;
    const now = (await core.runner.attempts(scope, ({ deadline }) => core.client.kv.range({ key: this.topicPrefix, count_only: true }, { deadline }))).header.revision;
    return BigInt(now) > BigInt(watchCreatedAt) ? now : watchCreatedAt;
  }

  /** The floor, on every claim this member writes, so that the group keeps it while only claims remain. */
  private floorField(): { f?: string } {
    return this.floor && this.floor !== '0' ? { f: this.floor } : {};
  }

  /** A claim that waited to be tried again will not be: the claims after it may be handed out. */
  private giveUpTurn(id: string): void {
    const turn = this.heldTurns.get(id);
    if (!turn) return;
    this.heldTurns.delete(id);
    turn.skip();
  }

  /** Capacity freed: look again at what was blocked on it, in topic order. */
  private unblock(): void {
    for (const id of this.state.inTopicOrder(this.blocked)) this.evaluate(id);
  }

  /**
   * Hands out won claims in the order the claims were started, which is topic order: claims run concurrently and
   * their transactions may come back in any order (batches, retries), so a claim's delivery waits for every claim
   * started before it to be won (and delivered) or lost.
   */
  private inClaimOrder(): ClaimTurn {
    const ticket: { handOut?: () => void; ready: boolean } = { ready: false };
    this.claimOrder.push(ticket);
    const drain = () => {
      while (this.claimOrder[0]?.ready) this.claimOrder.shift()!.handOut?.();
    };
    return {
      deliver: (handOut) => {
        ticket.handOut = handOut;
        ticket.ready = true;
        drain();
      },
      skip: () => {
        ticket.ready = true;
        drain();
      },
    };
  }

  private stopWatching(): void {
    if (this.watch) this.deps.stream.cancel(this.watch.id);
    this.watch = undefined;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    // Their retries were those timers.
    for (const id of [...this.heldTurns.keys()]) this.giveUpTurn(id);
  }

  private recover(operation: string, work: (scope: CallScope) => Promise<void>): Promise<void> {
    return retryForever(this.deps.core, operation, this.stopController.signal, this.deps.logger, work);
  }
}

/** A claim's place in the order won claims are handed out in (inClaimOrder). */
interface ClaimTurn {
  deliver(handOut: () => void): void;
  skip(): void;
}

function redeliveryReason(reason: ClaimReason): RedeliveryReason {
  if (reason === 'retry') return 'nack';
  if (reason === 'in-flight-timeout') return 'in-flight-timeout';
  return 'member-lost';
}

