import type { SubmitOptions } from '../commit/group-committer.js';
import { reachAfter, type PooledLease, type Reach } from '../leases/lease-choice.js';
import { rangeValue, type KeyValue } from '../operations/etcd-txn.js';
import { readTxn } from '../operations/read-lease.js';
import type { HeldVersion, RefreshOutcome } from '../operations/refresh-own.js';
import { refreshChoice } from './refresh-choice.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { POLICY } from '../policy.js';
import { adoptForeign } from './adopt-foreign.js';
import { KeyChurnError } from './key-churn.js';
import type { LeaseBackend } from './lease-backend.js';
import type { LeaseRequest } from './lease-request.js';

/** How a refresh of a key its value holds ended: written (the key lasts until the call's need), or not held. */
export type RefreshAnswer = { kind: 'written'; revision: string } | { kind: 'not-held'; kv?: KeyValue };

/** How each step's transaction is scheduled in the committer; `first`: the attempt's first transaction. */
export type StepSchedule = (first: boolean) => SubmitOptions | undefined;

/**
 * Refreshes the key for `request.value`, starting from `version` (what the provider knows or just read; undefined:
 * nothing, so the key is read first). Each step is one pinned refresh (operations/refresh-own.ts): it writes only if
 * the key is still exactly that version, moving it onto the call's lease or keeping its later one. A key on a lease
 * this provider did not mint is settled by that lease's TTL (adopt-foreign.ts). When the key holds the value as
 * another version, the next step refreshes that one; POLICY.maxStepsPerAttempt bounds the chase.
 *
 * The common case — a known version on a lease of ours, a pooled lease ready — is one transaction, run as promise
 * callbacks (hot path: renewals); anything else continues in `refreshSteps`.
 */
export function refreshHeld(
  backend: LeaseBackend,
  request: LeaseRequest,
  attempt: AttemptContext,
  version: HeldVersion | undefined,
  operation: string,
  schedule?: StepSchedule,
): Promise<RefreshAnswer> {
  if (version === undefined) return refreshSteps(backend, request, attempt, version, operation, schedule, 0);
  const choice = refreshChoice(version.lease, reachAfter(request.sent, request.ttlMs), (id) => backend.ownLease(id));
  if (choice.kind === 'foreign') return refreshSteps(backend, request, attempt, version, operation, schedule, 0);
  const lease = choice.kind === 'keep' ? choice.onLease : leaseOf(backend, request, choice.reach, attempt);
  // Waiting for a grant: once it is there (or the call ended, which rejects here), the steps find it in the pool.
  if (lease instanceof Promise) return lease.then(() => refreshSteps(backend, request, attempt, version, operation, schedule, 0));
  return refreshVersion(backend, request, attempt, version, lease, choice.kind === 'keep', schedule?.(true)).then((outcome) =>
    outcome.kind === 'moved' ? refreshSteps(backend, request, attempt, versionOf(outcome.kv), operation, schedule, 1) : outcome,
  );
}

async function refreshSteps(
  backend: LeaseBackend,
  request: LeaseRequest,
  attempt: AttemptContext,
  start: HeldVersion | undefined,
  operation: string,
  schedule: StepSchedule | undefined,
  firstStep: number,
): Promise<RefreshAnswer> {
  const { etcdKey, keyId, value, ttlMs, sent } = request;
  const need = reachAfter(sent, ttlMs);
  let version = start;
  for (let step = firstStep; step < POLICY.maxStepsPerAttempt; step++) {
    const how = schedule?.(step === 0);
    if (version === undefined) {
      const kv = rangeValue(await backend.commit(etcdKey, readTxn(etcdKey), attempt, undefined, how));
      if (kv === undefined || !kv.value.equals(value)) return kv === undefined ? { kind: 'not-held' } : { kind: 'not-held', kv };
      version = versionOf(kv);
      continue;
    }
    const choice = refreshChoice(version.lease, need, (id) => backend.ownLease(id));
    if (choice.kind === 'foreign') {
      const lease = await backend.leaseFor(ttlMs, sent, attempt);
      const adopted = await adoptForeign(backend, etcdKey, value, { mod_revision: version.revision, lease: version.lease }, need, lease, attempt);
      if (adopted !== undefined) {
        backend.remember(keyId, value, adopted.revision, sent.at + ttlMs, adopted.onLease, adopted.leaseId);
        return { kind: 'written', revision: adopted.revision };
      }
      version = undefined; // the key changed since it was read: read it again
      continue;
    }
    const lease = choice.kind === 'keep' ? choice.onLease : await leaseOf(backend, request, choice.reach, attempt);
    const outcome = await refreshVersion(backend, request, attempt, version, lease, choice.kind === 'keep', how);
    if (outcome.kind !== 'moved') return outcome;
    version = versionOf(outcome.kv);
  }
  throw new KeyChurnError(operation);
}

/** The call's lease when the move must reach `reach`: its own need alone (the common case), or that joined with the key's lease. */
function leaseOf(backend: LeaseBackend, request: LeaseRequest, reach: Reach, attempt: AttemptContext): PooledLease | Promise<PooledLease> {
  const need = reachAfter(request.sent, request.ttlMs);
  if (reach.notBefore === need.notBefore && reach.steadyNotBefore === need.steadyNotBefore) return backend.leaseFor(request.ttlMs, request.sent, attempt);
  return backend.leaseReaching(reach, attempt);
}

/** One pinned refresh of `version` on `lease` (kept: the key's own lease of ours); a write is remembered with the lease it left the key on. */
function refreshVersion(
  backend: LeaseBackend,
  request: LeaseRequest,
  attempt: AttemptContext,
  version: HeldVersion,
  lease: PooledLease,
  keep: boolean,
  how: SubmitOptions | undefined,
): Promise<RefreshOutcome> {
  const { etcdKey, keyId, value } = request;
  const txn = backend.ops.renew.txn(etcdKey, value, version, lease.id, keep);
  return backend.commit(etcdKey, txn, attempt, lease, how, keyId).then((answer) => {
    const outcome = backend.ops.renew.decode(answer, value);
    if (outcome.kind === 'written') backend.remember(keyId, value, outcome.revision, request.sent.at + request.ttlMs, lease, lease.id);
    return outcome;
  });
}

function versionOf(kv: KeyValue): HeldVersion {
  return { revision: kv.mod_revision, lease: kv.lease };
}
