import type { Etcd3 } from 'etcd3';
import type { LeaseClock } from '../clock/lease-clock.js';
import type { GroupCommitter } from '../commit/group-committer.js';
import type { KeyLanes } from '../commit/key-lanes.js';
import type { PooledLease } from '../leases/lease-choice.js';
import { LeasedWrites } from '../leases/leased-writes.js';
import type { LeasePool } from '../leases/lease-pool.js';
import type { TimeToLiveAnswer } from '../leases/lease-ttl.js';
import type { TxnOutcome, TxnRequest } from '../operations/etcd-txn.js';
import type { OwnLeaseIds } from '../operations/refresh-own.js';
import { renewDelayMs } from '../commit/renew-delay.js';
import type { TenureTable } from '../tenure/tenure-table.js';
import type { AttemptContext, CallBudget, CallRunner } from '../transport/call-runner.js';
import type { CallScope } from '../transport/call-scope.js';
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
  readonly own: OwnLeaseIds;
  readonly tenures: TenureTable;
  readonly operations: OperationSet;
  /** How long a renew may wait in the committer to share a transaction (commit/renew-delay.ts); 0: never. */
  readonly renewCoalesceMs: number;
}

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

  get own(): OwnLeaseIds {
    return this.parts.own;
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
   */
  write<T>(operation: string, etcdKey: Buffer, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    const { runner, lanes } = this.parts;
    const scope = runner.open(operation, budget);
    const keyId = etcdKey.toString('latin1');
    // A renew of this key parked in the committer would hold this call up for its whole wait: send it now.
    if (operation !== 'renewLease') this.parts.committer.expedite(keyId);
    // The common case — the lane is free — as a promise chain, not an async function (hot path, see CallRunner).
    const leave = lanes.tryEnter(keyId);
    if (leave === undefined) return this.writeAfterTurn(scope, keyId, attempt);
    // Every wait of an attempt ends with its signal (the committer's submit, a grant's, the TTL read's): no race needed.
    return runner.attempts(scope, attempt, true).finally(() => {
      leave();
      scope.dispose();
    });
  }

  /** `write` when an earlier call on the key still runs: wait for its turn first. */
  private async writeAfterTurn<T>(scope: CallScope, keyId: string, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    try {
      let leave: () => void;
      try {
        leave = await this.parts.lanes.enter(keyId, scope.signal);
      } catch {
        throw scope.giveUpError();
      }
      try {
        return await this.parts.runner.attempts(scope, attempt, true);
      } finally {
        leave();
      }
    } finally {
      scope.dispose();
    }
  }


  /**
   * A pooled lease that keeps a key written by a call sent at `sentAt` alive for `ttlMs`: at once when one fits, else
   * once its grant answers — or rejects when the call ends first.
   */
  leaseFor(ttlMs: number, sentAt: number, attempt: AttemptContext): PooledLease | Promise<PooledLease> {
    return this.writes.granted(this.parts.pool.leaseFor(ttlMs, sentAt), attempt);
  }

  /**
   * One transaction through the group committer, as part of `attempt`. `mayWaitMs` > 0 (renews only) lets it wait
   * that long for other operations to share its transaction.
   */
  commit(etcdKey: Buffer, txn: TxnRequest, attempt: AttemptContext, lease?: PooledLease, mayWaitMs = 0): Promise<TxnOutcome> {
    return this.writes.commit(etcdKey, txn, attempt, lease?.id, mayWaitMs);
  }

  /**
   * How long the first attempt of a renew of `keyId` by `value` may wait for company (commit/renew-delay.ts): never
   * past the point one attempt timeout before the lease it protects could end. Retries and later steps never wait.
   */
  renewDelayMs(keyId: string, value: Buffer, ttlMs: number, attempt: AttemptContext): number {
    if (attempt.attempt !== 0 || this.parts.renewCoalesceMs <= 0) return 0;
    return renewDelayMs({
      now: this.parts.clock.now(),
      ttlMs,
      windowMs: this.parts.renewCoalesceMs,
      protectedUntil: this.parts.tenures.protectedUntil(keyId, value),
      marginMs: Math.max(attempt.timeoutMs, this.parts.runner.timeouts.baseMs),
    });
  }

  /**
   * Records a successful write of `value` at `revision` by a call that needed the key until `need`. `onLease`: the
   * lease the write put the key on (or kept it on a later one of ours), whose notBefore is then certain too; absent
   * when the key stayed on a lease we did not mint, of which only `need` is known.
   */
  remember(keyId: string, value: Buffer, revision: string, need: number, onLease?: PooledLease): void {
    const until = onLease === undefined ? need : Math.max(need, onLease.notBefore);
    this.parts.tenures.remember(keyId, value, revision, until, this.parts.clock.now());
  }

  /** etcd's answer about `leaseId`'s remaining TTL, with when it was asked and answered (leases/lease-ttl.ts says what it proves). */
  async timeToLive(leaseId: string, attempt: AttemptContext): Promise<TimeToLiveAnswer> {
    const askedAt = this.parts.clock.now();
    const res = await untilStopped(attempt.signal, this.parts.client.leaseClient.leaseTimeToLive({ ID: leaseId }, { deadline: attempt.deadline }));
    return { ttlSeconds: Number(res.TTL), grantedSeconds: Number(res.grantedTTL), askedAt, answeredAt: this.parts.clock.now() };
  }
}
