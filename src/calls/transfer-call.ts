import { POLICY } from '../policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { adoptForeign } from './adopt-foreign.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';

interface TransferRequest {
  readonly etcdKey: Buffer;
  readonly from: Buffer;
  readonly to: Buffer;
  readonly ttlMs: number;
  readonly sentAt: number;
}

/**
 * A transferLease call: its attempts share what they learn of `from`'s current revision (starting from this
 * provider's own last write, or '0' when it has none), so the handover always names one exact tenure.
 */
export class TransferCall {
  private fromRevision: string;

  constructor(
    private readonly backend: LeaseBackend,
    private readonly request: TransferRequest,
  ) {
    this.fromRevision = backend.tenures.revisionOf(request.etcdKey.toString('latin1'), request.from) ?? '0';
  }

  async attempt(attempt: AttemptContext): Promise<boolean> {
    const { backend } = this;
    const { etcdKey, from, to, ttlMs, sentAt } = this.request;
    const keyId = etcdKey.toString('latin1');
    const need = sentAt + ttlMs;
    for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
      const lease = await backend.leaseFor(ttlMs, sentAt, attempt);
      const txn = backend.ops.transfer.txn(etcdKey, from, this.fromRevision, to, lease.id, backend.own);
      const outcome = backend.ops.transfer.decode(await backend.commit(etcdKey, txn, attempt, lease), from, to);
      if (outcome.kind === 'from-elsewhere') {
        // `from` still holds the key as a write we did not know of; no later call of ours has run on this key
        // since this call began (KeyLanes), so it is the tenure the caller means.
        this.fromRevision = outcome.revision;
        continue;
      }
      if (outcome.kind === 'not-held') {
        backend.tenures.forget(keyId, from);
        return false;
      }
      const revision =
        outcome.kind === 'written' ? outcome.revision : await adoptForeign(backend, etcdKey, to, outcome.kv, need, lease, attempt);
      if (revision !== undefined) {
        backend.tenures.forget(keyId, from);
        backend.remember(keyId, to, revision, need, outcome.kind === 'written' ? lease : undefined);
        return true;
      }
    }
    throw new KeyChurnError('transferLease');
  }
}
