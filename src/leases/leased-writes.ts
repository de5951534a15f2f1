import { TaskCancelledError } from 'cockatiel';
import { EtcdLeaseInvalidError } from 'etcd3';
import type { GroupCommitter, SubmitOptions } from '../commit/group-committer.js';
import type { TxnOutcome, TxnRequest } from '../operations/etcd-txn.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { untilStopped } from '../transport/stop-signal.js';

/** Where the leases of some writes come from (a LeasePool, the consumer-group Session), told of one etcd no longer knows. */
interface LeaseSource {
  invalidate(leaseId: string): void;
}

/**
 * The steps every write that puts keys on an etcd lease of ours takes around its transaction, wherever the lease
 * comes from — the provider's lease pool, the events' retention pool, the consumer-group session:
 * - a lease still being granted is waited for no longer than the attempt, and an attempt that ended meanwhile sends
 *   nothing: an abandoned attempt must not be sent;
 * - when etcd answers that it no longer knows the lease (revoked, expired, lost with the cluster's data), its source
 *   drops it, so the retry gets another.
 */
export class LeasedWrites {
  constructor(
    private readonly committer: GroupCommitter,
    private readonly source: LeaseSource,
  ) {}

  /** `lease` as it is when it is there (no promise: the hot path), else once its grant answers within `attempt`. */
  granted<L>(lease: L | Promise<L>, attempt: AttemptContext): L | Promise<L> {
    if (!(lease instanceof Promise)) return lease;
    return untilStopped(attempt.signal, lease).then((granted) => {
      // The call may have ended while the grant was on its way.
      if (attempt.signal.aborted) throw new TaskCancelledError('call ended while its lease was granted');
      return granted;
    });
  }

  /** One transaction of `attempt` through the group committer that puts keys on `leaseId` (undefined: on no lease of ours). */
  async commit(key: Buffer, txn: TxnRequest, attempt: AttemptContext, leaseId: string | undefined, how?: SubmitOptions): Promise<TxnOutcome> {
    try {
      return await this.committer.submit(key, txn, attempt.timeoutMs, attempt.signal, how);
    } catch (error) {
      if (leaseId !== undefined && error instanceof EtcdLeaseInvalidError) this.source.invalidate(leaseId);
      throw error;
    }
  }
}
