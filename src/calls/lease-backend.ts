import { TaskCancelledError } from 'cockatiel';
import { EtcdLeaseInvalidError, type Etcd3 } from 'etcd3';
import type { LeaseClock } from '../clock/lease-clock.js';
import type { GroupCommitter } from '../commit/group-committer.js';
import type { KeyLanes } from '../commit/key-lanes.js';
import type { PooledLease } from '../leases/lease-choice.js';
import type { LeasePool } from '../leases/lease-pool.js';
import type { TxnOutcome, TxnRequest } from '../operations/etcd-txn.js';
import type { OwnLeaseIds } from '../operations/refresh-own.js';
import type { TenureTable } from '../tenure/tenure-table.js';
import type { AttemptContext, CallBudget, CallRunner } from '../transport/call-runner.js';
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
}

/**
 * The provider's write path, shared by every call: per-key order (KeyLanes), one scope with the call's deadline,
 * attempts under the retry policy, pooled leases chosen for the time the call was made, transactions through
 * the group committer.
 */
export class LeaseBackend {
  constructor(readonly parts: BackendParts) {}

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
  async write<T>(operation: string, etcdKey: Buffer, budget: CallBudget, attempt: (ctx: AttemptContext) => Promise<T>): Promise<T> {
    const { runner, lanes } = this.parts;
    const scope = runner.open(operation, budget);
    try {
      let leave: () => void;
      try {
        leave = await lanes.enter(etcdKey.toString('latin1'), scope.signal);
      } catch {
        throw scope.giveUpError();
      }
      try {
        return await runner.attempts(scope, attempt);
      } finally {
        leave();
      }
    } finally {
      scope.dispose();
    }
  }

  /** A pooled lease that keeps a key written by a call sent at `sentAt` alive for `ttlMs`. */
  async leaseFor(ttlMs: number, sentAt: number, attempt: AttemptContext): Promise<PooledLease> {
    const lease = await this.parts.pool.leaseFor(ttlMs, sentAt);
    // The call may have ended while the grant was on its way: an abandoned attempt must not be sent.
    if (attempt.signal.aborted) throw new TaskCancelledError('call ended while its lease was granted');
    return lease;
  }

  /** One transaction through the group committer, as part of `attempt`. */
  async commit(etcdKey: Buffer, txn: TxnRequest, attempt: AttemptContext, lease?: PooledLease): Promise<TxnOutcome> {
    try {
      return await this.parts.committer.submit(etcdKey, txn, attempt.timeoutMs, attempt.signal);
    } catch (error) {
      // etcd no longer knows the lease (revoked, or lost with the cluster's data): drop it so the retry picks another.
      if (lease !== undefined && error instanceof EtcdLeaseInvalidError) this.parts.pool.invalidate(lease.id);
      throw error;
    }
  }

  /** Milliseconds the server still counts for `leaseId` (whole seconds, rounded down; 0 when it is gone). */
  async remainingTtlMs(leaseId: string, attempt: AttemptContext): Promise<number> {
    const res = await this.parts.client.leaseClient.leaseTimeToLive({ ID: leaseId }, { deadline: attempt.deadline });
    return Math.max(0, Number(res.TTL)) * 1000;
  }
}
