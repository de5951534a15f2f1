import { POLICY } from '../policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';

/**
 * A releaseLease call. Each attempt deletes the key only as one exact write (value and mod revision): this
 * provider's own last write, or, when it knows none or the holder wrote since, the revision the failed compare
 * read — no later call of this provider can have written the key while this call runs (KeyLanes). So an attempt
 * that lands late, after the call has answered, can never delete a later tenure of the same owner.
 *
 * With `exactRevision`, only that one write is deleted and nothing is chased (undoing an acquire a waiter gave up on).
 */
export class ReleaseCall {
  private revision: string;

  constructor(
    private readonly backend: LeaseBackend,
    private readonly etcdKey: Buffer,
    private readonly value: Buffer,
    private readonly exactRevision?: string,
  ) {
    this.revision = exactRevision ?? backend.tenures.revisionOf(etcdKey.toString('latin1'), value) ?? '0';
  }

  async attempt(attempt: AttemptContext): Promise<void> {
    const { backend, etcdKey, value } = this;
    for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
      const txn = backend.ops.release.txn(etcdKey, value, this.revision);
      const outcome = backend.ops.release.decode(await backend.commit(etcdKey, txn, attempt), value);
      if (outcome.kind === 'moved') {
        if (this.exactRevision !== undefined) return; // a later write of the same holder: not ours to undo
        this.revision = outcome.revision;
        continue;
      }
      backend.tenures.forget(etcdKey.toString('latin1'), value);
      return;
    }
    throw new KeyChurnError('releaseLease');
  }
}
