import type { ClockMoment } from '../clock/lease-clock.js';
import { POLICY } from '../policy.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';
import { refreshHeld } from './refresh-held.js';

interface TransferRequest {
  readonly etcdKey: Buffer;
  readonly keyId: string;
  readonly from: Buffer;
  readonly to: Buffer;
  readonly ttlMs: number;
  readonly sent: ClockMoment;
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
    this.fromRevision = backend.tenures.revisionOf(request.keyId, request.from) ?? '0';
  }

  async attempt(attempt: AttemptContext): Promise<boolean> {
    const { backend } = this;
    const { etcdKey, keyId, from, to, ttlMs, sent } = this.request;
    for (let step = 0; step < POLICY.maxStepsPerAttempt; step++) {
      const lease = await backend.leaseFor(ttlMs, sent, attempt);
      const txn = backend.ops.transfer.txn(etcdKey, from, this.fromRevision, to, lease.id);
      const outcome = backend.ops.transfer.decode(await backend.commit(etcdKey, txn, attempt, lease), from, to);
      if (outcome.kind === 'from-elsewhere') {
        // `from` still holds the key as a write we did not know of; no later call of ours has run on this key
        // since this call began (KeyLanes), so it is the tenure the caller means.
        this.fromRevision = outcome.revision;
        continue;
      }
      if (outcome.kind === 'written') {
        backend.tenures.forget(keyId, from);
        backend.remember(keyId, to, outcome.revision, sent.at + ttlMs, lease, lease.id);
        return true;
      }
      if (outcome.kind === 'to-holds') {
        // An earlier attempt of this transfer committed: refresh `to`'s version for this call's ttl.
        const version = { revision: outcome.kv.mod_revision, lease: outcome.kv.lease };
        const refreshed = await refreshHeld(backend, { etcdKey, keyId, value: to, ttlMs, sent }, attempt, version, 'transferLease');
        if (refreshed.kind === 'written') {
          backend.tenures.forget(keyId, from);
          return true;
        }
        if (refreshed.kv?.value.equals(from)) {
          this.fromRevision = refreshed.kv.mod_revision;
          continue;
        }
      }
      backend.tenures.forget(keyId, from);
      return false;
    }
    throw new KeyChurnError('transferLease');
  }
}
