import type { Etcd3 } from 'etcd3';
import type { LeaseClock } from '../clock/lease-clock.js';
import type { GroupCommitter, SubmitOptions } from '../commit/group-committer.js';
import type { KeyLanes, TakeOver } from '../commit/key-lanes.js';
import { Superseded } from '../commit/superseded.js';
import { unstacked } from '../commit/unstacked.js';
import { EtcdNoSpaceError } from '../errors/no-space.js';
import type { ClockMoment } from '../clock/lease-clock.js';
import type { PooledLease, Reach } from '../leases/lease-choice.js';
import { LeasedWrites } from '../leases/leased-writes.js';
import type { LeasePool } from '../leases/lease-pool.js';
import type { TimeToLiveAnswer } from '../leases/lease-ttl.js';
import type { TxnOutcome, TxnRequest } from '../operations/etcd-txn.js';
import { renewDelayMs } from '../commit/renew-delay.js';
import type { TenureTable } from '../tenure/tenure-table.js';
import type { AttemptContext, CallBudget, CallRunner } from '../transport/call-runner.js';
import { CallScope } from '../transport/call-scope.js';
import { untilStopped } from '../transport/stop-signal.js';
import type { OperationSet } from './operation-set.js';

/** Everything a provider call needs, wired once by the provider. */
export interface BackendParts {
  readonly client: Etcd3;
  readonly runner: CallRunner;
  readonly committer: GroupCommitter;
  readonly lanes: KeyLanes;
  readonly pool: LeasePool;
  readonly clock: LeaseClock;
  readonly tenures: TenureTable;
  readonly operations: OperationSet;
  /** How long a renew may wait in the committer to share a transaction (commit/renew-delay.ts); 0: never. */
  readonly renewCoalesceMs: number;
}

/** What a renewal call renews: the key's stored value, for how long. */
interface Renewal {
  readonly value: Buffer;
  readonly ttlMs: number;
}

/** The calls that put a key (and so are refused under etcd's NOSPACE alarm); a release only deletes. */
const PUTTING = new Set(['acquireLease', 'renewLease', 'transferLease']);

/**
 * The provider's write path, shared by every call: per-key order (KeyLanes), one scope with the call's deadline,
 * attempts under the retry policy, pooled leases chosen for the time the call was made, transactions through
 * the group committer.
 */
export class LeaseBackend {
  private readonly writes: LeasedWrites;

  constructor(readonly parts: BackendParts) {
    this.writes = new LeasedWrites(parts.committer, parts.pool);
  }

  get clock(): LeaseClock {
    return this.parts.clock;
  }

  get tenures(): TenureTable {
    return this.parts.tenures;
  }

  get ops(): OperationSet {
    return this.parts.operations;
  }

  /**
   * One call that writes `etcdKey`: it waits for earlier calls on the key, then runs `attempt` until it succeeds,
   * fails for good or runs out of budget. The lane is held for the whole call, retries included.
   *
   * `renewal`: the call is a renewal of the key by that stored value for that TTL. A renewal of the key by the same
   * value and TTL that still waits — for its turn, or in the committer's queue — is then superseded by this one: it is
   * not sent, and settles like this one (within its own deadline), since this one reaches further at the same cost.
   * That answer is true for the earlier call too: this one is made while the window of the key's last write still
   * runs, and its own window (made later, for the same TTL) ends later, so the two cover the earlier call's. Only while
   * this one can take over, though: made one attempt timeout or less before that window ends, its own would begin
   * after the end and leave the holder a gap that the earlier renewal, once sent, closes; and not when this call
   * carries its caller's signal, whose abort would fail the earlier call too. (Renewals on a timer, as Mastra sends
   * them, only overlap when etcd answers slower than the timer ticks.)
   */
  write<T>(
    operation: string,
    etcdKey: Buffer,
    budget: CallBudget,
    attempt: (ctx: AttemptContext) => Promise<T>,
    renewal?: Renewal,
    keyId: string = etcdKey.toString('latin1'),
  ): Promise<T> {
    const { runner, lanes, committer } = this.parts;
    const now = performance.now();
    // etcd reported its NOSPACE alarm: fail before choosing a lease (a grant is a write too) or waiting for a turn.
    if (PUTTING.has(operation) && committer.spaceAlarm.refusing(now)) return Promise.reject(unstacked(() => new EtcdNoSpaceError(operation)));
    // A renew of this key parked in the committer would hold this call up for its whole wait: send it now.
    if (operation !== 'renewLease') committer.expedite(keyId);
    // The common case — the lane is free — as a promise chain, not an async function (hot path, see CallRunner).
    const leave = lanes.tryEnter(keyId);
    if (leave === undefined) {
      const outcome = renewal !== undefined && budget.signals === undefined && this.canTakeOver(keyId, renewal.value) ? new Outcome<T>() : undefined;
      const takeOver = outcome === undefined ? undefined : { tag: renewalTag(renewal!.value, renewal!.ttlMs), outcome: outcome.promise };
      const replaces = takeOver !== undefined && committer.supersede(keyId, takeOver.tag, takeOver.outcome);
      if (!replaces && committer.mightShed() && this.shedsNow(keyId, renewal?.value, now)) return Promise.reject(committer.shedError(operation));
      const result = this.writeAfterTurn(runner.open(operation, budget), keyId, attempt, takeOver);
      outcome?.settleLike(result);
      return result;
    }
    // Past capacity, a call the committer would shed as it came is shed before it costs a scope, a lease or a Txn:
    // what the process spends on calls it cannot serve it takes from those it can.
    if (committer.mightShed() && this.shedsNow(keyId, renewal?.value, now)) {
      leave();
      return Promise.reject(committer.shedError(operation));
    }
    const scope = runner.open(operation, budget);
    // Every wait of an attempt ends with its signal (the committer's submit, a grant's, the TTL read's): no race needed.
    return runner.attempts(scope, attempt, true).then(
      (value) => {
        leave();
        scope.dispose();
        return value;
      },
      (error: unknown) => {
        leave(); // first: a call that superseded this one waits for the key's turn
        return follow<T>(scope, error).finally(() => scope.dispose());
      },
    );
  }

  /**
   * Whether the committer would shed a call on `keyId` made at `now` (performance.now()) as it came. A renewal of a key
   * this provider wrote, whose holder's window is still open, is due as `renewalDueInMs` says and is shed only after
   * fresh work; anything else is fresh work, due at once.
   */
  private shedsNow(keyId: string, renewOf: Buffer | undefined, now: number): boolean {
    const believedUntil = renewOf === undefined ? undefined : this.parts.tenures.believedUntil(keyId, renewOf);
    if (believedUntil === undefined) return this.parts.committer.shedsAt(now, false);
    const left = believedUntil - this.parts.clock.now();
    return this.parts.committer.shedsAt(now + renewalDueInMs(left, this.parts.runner.timeouts.baseMs), left > 0);
  }

  /** `write` when an earlier call on the key still runs: wait for its turn first. */
  private async writeAfterTurn<T>(scope: CallScope, keyId: string, attempt: (ctx: AttemptContext) => Promise<T>, takeOver: TakeOver | undefined): Promise<T> {
    try {
      let leave: () => void;
      try {
        leave = await this.parts.lanes.enter(keyId, scope.signal, takeOver);
      } catch (error) {
        if (error instanceof Superseded) return await follow<T>(scope, error);
        throw scope.giveUpError();
      }
      let result: T;
      try {
        result = await this.parts.runner.attempts(scope, attempt, true);
      } catch (error) {
        leave(); // first: a call that superseded this one waits for the key's turn
        return await follow<T>(scope, error);
      }
      leave();
      return result;
    } finally {
      scope.dispose();
    }
  }


  /** Whether a renewal of `keyId` by `value` made now starts its window early enough to replace a waiting one. */
  private canTakeOver(keyId: string, value: Buffer): boolean {
    const believedUntil = this.parts.tenures.believedUntil(keyId, value);
    return believedUntil !== undefined && this.parts.clock.now() < believedUntil - this.parts.runner.timeouts.baseMs;
  }

  /**
   * A pooled lease that keeps a key written by a call sent at `sent` alive for `ttlMs`: at once when one fits, else
   * once its grant answers — or rejects when the call ends first.
   */
  leaseFor(ttlMs: number, sent: ClockMoment, attempt: AttemptContext): PooledLease | Promise<PooledLease> {
    return this.whenGranted(this.parts.pool.leaseFor(ttlMs, sent), attempt);
  }

  /** A pooled lease that reaches `need` on both scales (leaseFor's rules); the one granted for it when none does. */
  leaseReaching(need: Reach, attempt: AttemptContext): PooledLease | Promise<PooledLease> {
    return this.whenGranted(this.parts.pool.leaseReaching(need), attempt);
  }

  /** The lease of ours minted under `id`, while a key can still be on it; undefined for an id we cannot vouch for. */
  ownLease(id: string): PooledLease | undefined {
    return this.parts.pool.record(id);
  }

  private whenGranted(pooled: PooledLease | Promise<PooledLease>, attempt: AttemptContext): PooledLease | Promise<PooledLease> {
    const lease = this.writes.granted(pooled, attempt);
    if (!(lease instanceof Promise)) return lease;
    return lease.catch((error: unknown) => {
      // etcd refuses grants under the NOSPACE alarm too: the committer then stops sending writes as well.
      if (error instanceof EtcdNoSpaceError) this.parts.committer.spaceAlarm.raise(performance.now());
      throw error;
    });
  }

  /**
   * One transaction through the group committer, as part of `attempt`; `how` schedules a renewal's (renewSchedule).
   * The committer's errors name the call (the attempt's signal is its scope).
   */
  commit(etcdKey: Buffer, txn: TxnRequest, attempt: AttemptContext, lease?: PooledLease, how?: SubmitOptions, keyId?: string): Promise<TxnOutcome> {
    return this.writes.commit(etcdKey, txn, attempt, lease?.id, how ?? { operation: operationOf(attempt), keyId });
  }

  /**
   * How a renewal's transaction of `keyId` by `value` is scheduled in the committer:
   * - it may wait for company (commit/renew-delay.ts) on the first step of the first attempt only (`mayWait`): never
   *   past the point one attempt timeout before the lease it protects could end;
   * - it is due (`urgentAt`, `renewalDueInMs`) halfway to one attempt timeout before the window its holder was promised
   *   by this provider's last write of the key ends (send time + ttlMs: what a caller may rely on, earlier than the
   *   pooled lease's end), so under load the renewals closest to their lease's end are sent first, and each while the
   *   one before still holds — the renewal sent is the latest (supersede), and its own window starts before that end,
   *   so the holder's windows join without a gap; without a known end (a key written elsewhere) it is due now;
   * - `renewOf` lets a later renewal by the same value for the same TTL supersede it while it waits;
   * - `leaseOpen`: while that window is open, it is shed only after fresh work (commit/ready-queue.ts).
   */
  renewSchedule(keyId: string, value: Buffer, ttlMs: number, attempt: AttemptContext, mayWait: boolean): SubmitOptions {
    const { clock, tenures } = this.parts;
    const now = clock.now();
    const tenure = tenures.entryFor(keyId, value);
    const protectedUntil = tenure?.until;
    const believedUntil = tenure?.believed;
    const marginMs = Math.max(attempt.timeoutMs, this.parts.runner.timeouts.baseMs);
    const waits = mayWait && attempt.attempt === 0 && this.parts.renewCoalesceMs > 0;
    return {
      operation: 'renewLease',
      keyId,
      renewOf: renewalTag(value, ttlMs),
      mayWaitMs: waits ? renewDelayMs({ now, ttlMs, windowMs: this.parts.renewCoalesceMs, protectedUntil, marginMs }) : 0,
      // The committer's clock is performance.now(); LeaseClock never runs slower, so this is never later than meant.
      urgentAt: believedUntil === undefined ? undefined : performance.now() + renewalDueInMs(believedUntil - now, marginMs),
      leaseOpen: believedUntil !== undefined && believedUntil > now,
    };
  }

  /**
   * Records a successful write of `value` at `revision` by a call that needed the key until `need`. `onLease`: the
   * lease the write put the key on (or kept it on a later one of ours), whose notBefore is then certain too; absent
   * when the key stayed on a lease we did not mint, of which only `need` is known. `leaseId`: the etcd lease the key
   * is on after the write, so the next refresh can name that version (operations/refresh-own.ts).
   */
  remember(keyId: string, value: Buffer, revision: string, need: number, onLease: PooledLease | undefined, leaseId: string): void {
    const until = onLease === undefined ? need : Math.max(need, onLease.notBefore);
    this.parts.tenures.remember(keyId, value, revision, until, this.parts.clock.now(), need, leaseId);
  }

  /** etcd's answer about `leaseId`'s remaining TTL, with when it was asked and answered (leases/lease-ttl.ts says what it proves). */
  async timeToLive(leaseId: string, attempt: AttemptContext): Promise<TimeToLiveAnswer> {
    const asked = this.parts.clock.moment();
    const res = await untilStopped(attempt.signal, this.parts.client.leaseClient.leaseTimeToLive({ ID: leaseId }, { deadline: attempt.deadline }));
    return { ttlSeconds: Number(res.TTL), grantedSeconds: Number(res.grantedTTL), asked, answered: this.parts.clock.moment() };
  }
}

/**
 * In how many ms a renewal is due, with `leftMs` left of its holder's window and `marginMs` (one attempt timeout) needed
 * to get an answer: halfway to the last moment it can still be sent with that margin, or at once past it (negative: it
 * is overdue). Not at the last moment itself: under a flood of fresh work a renewal is sent only when due, and one
 * sent with a single attempt timeout to spare missed its window whenever the commit took longer than that.
 */
export function renewalDueInMs(leftMs: number, marginMs: number): number {
  const spare = leftMs - marginMs;
  return spare > 0 ? spare / 2 : spare;
}

/** The name of the call `attempt` belongs to: CallRunner hands each attempt its call's scope as the signal. */
function operationOf(attempt: AttemptContext): string {
  return attempt.signal instanceof CallScope ? attempt.signal.operation : 'commit';
}

/** A renewal's identity for superseding: of two renewals of one key by one value for one TTL, the later reaches further. */
function renewalTag(value: Buffer, ttlMs: number): string {
  return `${ttlMs}/${value.toString('latin1')}`;
}

/** A superseded call settles like the call that took its place, within its own deadline; any other error stands. */
function follow<T>(scope: CallScope, error: unknown): Promise<T> {
  return error instanceof Superseded ? scope.race(error.by as Promise<T>) : Promise.reject(error);
}

/** The result of a call that may take other calls' places, made before the call itself (they are superseded as it starts). */
class Outcome<T> {
  readonly promise: Promise<T>;
  private resolve!: (value: T) => void;
  private reject!: (error: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.promise.catch(() => {}); // followed by the calls it superseded, if any; none may leave it unhandled
  }

  settleLike(result: Promise<T>): void {
    result.then(this.resolve, this.reject);
  }
}
