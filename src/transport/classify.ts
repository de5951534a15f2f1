import { TaskCancelledError, isBrokenCircuitError } from 'cockatiel';
import {
  EtcdAuthenticationFailedError,
  EtcdLeaseInvalidError,
  EtcdPermissionDeniedError,
  GRPCInvalidArgumentError,
  GRPCOutOfRangeError,
  GRPCUnauthenticatedError,
  isRecoverableError,
} from 'etcd3';
import { EtcdAuthenticationError } from '../errors/authentication.js';
import { EtcdCompactedError } from '../errors/compacted.js';
import { LeaseArgumentRangeError } from '../errors/invalid-argument.js';
import { isLeaseError, type LeaseError } from '../errors/lease-error.js';
import { EtcdNoSpaceError } from '../errors/no-space.js';
import { EtcdPermissionError } from '../errors/permission.js';
import { EtcdRequestRejectedError } from '../errors/rejected.js';
import { EtcdSizeLimitError } from '../errors/size-limit.js';
import { EtcdTlsError } from '../errors/tls.js';
import { AttemptRetryError } from './attempt-retry.js';
import { ETCD_RPC_ERROR, etcdDescription } from './etcd-rpc-error.js';
import { isMessageSizeError, messageSizes } from './message-size.js';
import { TlsHandshakeFailure } from './tls-diagnosis.js';

/**
 * What the retry policy should do with an error from one attempt.
 * - `retry`: transient (member down, no leader, attempt deadline, open circuit), or a pooled lease etcd
 *   no longer knows (the provider drops it from the pool before the resend picks another), or an attempt that says
 *   so itself (AttemptRetryError: the key kept changing under it). Safe to resend because every operation is
 *   idempotent by construction (see src/operations).
 * - `fatal`: retrying cannot help (bad credentials, missing permission, TLS setup, a request etcd refuses, a message
 *   over a size limit, a revision compacted away).
 */
export type Verdict = { kind: 'retry' } | { kind: 'fatal'; error: LeaseError | Error };

/**
 * Classifies by error class (as `etcd3` and cockatiel type them), never by searching message text;
 * the two etcd errors etcd3 leaves untyped are recognised by etcd's own identity (see etcd-rpc-error.ts).
 */
export function classify(error: unknown, operation: string, prefix: string): Verdict {
  if (isLeaseError(error)) return error.retryable ? { kind: 'retry' } : { kind: 'fatal', error };
  if (error instanceof EtcdLeaseInvalidError || error instanceof AttemptRetryError) return { kind: 'retry' };
  if (error instanceof EtcdAuthenticationFailedError || error instanceof GRPCUnauthenticatedError) {
    return { kind: 'fatal', error: new EtcdAuthenticationError(operation, error) };
  }
  // gRPC says UNAVAILABLE for TLS failures too; the client's TLS probe (TlsDiagnosis) has already
  // replaced those it proved to be TLS setup with this type, so no message text is read here.
  if (error instanceof TlsHandshakeFailure) {
    return { kind: 'fatal', error: new EtcdTlsError(operation, error.finding.detail, error) };
  }
  if (error instanceof EtcdPermissionDeniedError) {
    return { kind: 'fatal', error: new EtcdPermissionError(operation, prefix, error) };
  }
  if (error instanceof GRPCInvalidArgumentError) {
    const description = etcdDescription(error);
    // Right after an operator edits users or roles, members that have not applied the edit yet answer
    // this for a moment; it used to surface as a rejected request.
    if (description === ETCD_RPC_ERROR.authOldRevision) return { kind: 'retry' };
    if (description === ETCD_RPC_ERROR.userEmpty) return { kind: 'fatal', error: new EtcdAuthenticationError(operation, error) };
    if (description === ETCD_RPC_ERROR.requestTooLarge) {
      return { kind: 'fatal', error: new EtcdSizeLimitError(operation, 'etcd-request', undefined, undefined, error) };
    }
    return { kind: 'fatal', error: new EtcdRequestRejectedError(operation, error) };
  }
  // checkTtl allows up to etcd's largest lease TTL, but the pooled lease is ttlMs plus the bucket,
  // rounded up to whole seconds: the last ~2 s below the limit reach etcd, which refuses them.
  if (error instanceof GRPCOutOfRangeError && etcdDescription(error) === ETCD_RPC_ERROR.leaseTtlTooLarge) {
    return {
      kind: 'fatal',
      error: new LeaseArgumentRangeError('ttlMs', "too large: with the lease bucket and rounding up to whole seconds, the etcd lease would exceed etcd's largest TTL (9 000 000 000 s)"),
    };
  }
  // etcd3 marks RESOURCE_EXHAUSTED recoverable, but a message over a size limit is refused again every time, and
  // the cluster is fine: retried until the deadline, it used to end as "etcd unavailable".
  if (isMessageSizeError(error)) {
    const sizes = messageSizes(error);
    return { kind: 'fatal', error: new EtcdSizeLimitError(operation, 'grpc-message', sizes?.sizeBytes, sizes?.limitBytes, error) };
  }
  // The NOSPACE alarm stays raised until an operator acts: waiting out the deadline cannot help.
  if (error instanceof Error && etcdDescription(error) === ETCD_RPC_ERROR.noSpace) {
    return { kind: 'fatal', error: new EtcdNoSpaceError(operation, error) };
  }
  if (error instanceof GRPCOutOfRangeError && etcdDescription(error) === ETCD_RPC_ERROR.compacted) {
    return { kind: 'fatal', error: new EtcdCompactedError(operation, undefined, error) };
  }
  // instanceof, not cockatiel's isTaskCancelledError: in cockatiel 3.2 that tests another marker and never matches.
  if (error instanceof Error && (isRecoverableError(error) || isBrokenCircuitError(error) || error instanceof TaskCancelledError)) {
    return { kind: 'retry' };
  }
  // Unknown failures (a bug, an unexpected server answer) surface as they are rather than being retried blindly.
  return { kind: 'fatal', error: error instanceof Error ? error : new Error(String(error)) };
}
