import { castGrpcError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { EtcdAuthenticationError } from '../errors/authentication.js';
import { LeaseArgumentRangeError } from '../errors/invalid-argument.js';
import { EtcdRequestRejectedError } from '../errors/rejected.js';
import { EtcdTlsError } from '../errors/tls.js';
import { classify } from './classify.js';
import { TlsHandshakeFailure } from './tls-diagnosis.js';

/** An error as grpc-js raises it and etcd3 casts it. */
const grpc = (code: number, name: string, details: string) =>
  castGrpcError(Object.assign(new Error(`${code} ${name}: ${details}`), { code, details }));

describe('classify: security-related errors', () => {
  it('a proven TLS setup failure is fatal EtcdTlsError carrying the finding', () => {
    const unavailable = grpc(14, 'UNAVAILABLE', 'No connection established');
    const verdict = classify(new TlsHandshakeFailure({ detail: 'the server certificate is not trusted', code: 'X' }, unavailable), 'acquireLease', 'p/');
    expect(verdict.kind).toBe('fatal');
    const error = (verdict as { error: Error }).error;
    expect(error).toBeInstanceOf(EtcdTlsError);
    expect(error.message).toBe('acquireLease: TLS certificate or handshake failure — the server certificate is not trusted');
  });

  it('an UNAVAILABLE the probe did not attribute to TLS stays retryable', () => {
    expect(classify(grpc(14, 'UNAVAILABLE', 'No connection established'), 'acquireLease', 'p/')).toEqual({ kind: 'retry' });
  });

  it('"revision of auth store is old" (an auth edit not yet applied on this member) is retried', () => {
    expect(classify(grpc(3, 'INVALID_ARGUMENT', 'etcdserver: revision of auth store is old'), 'acquireLease', 'p/')).toEqual({ kind: 'retry' });
  });

  it('"user name is empty" (auth on, no credentials given) is an authentication error', () => {
    const verdict = classify(grpc(3, 'INVALID_ARGUMENT', 'etcdserver: user name is empty'), 'acquireLease', 'p/');
    expect((verdict as { error: Error }).error).toBeInstanceOf(EtcdAuthenticationError);
  });

  it('any other InvalidArgument is a rejected request, matched on the whole description only', () => {
    for (const details of ['etcdserver: request is too large', 'etcdserver: revision of auth store is old (or not)']) {
      const verdict = classify(grpc(3, 'INVALID_ARGUMENT', details), 'acquireLease', 'p/');
      expect((verdict as { error: Error }).error).toBeInstanceOf(EtcdRequestRejectedError);
    }
  });

  it('"too large lease TTL" is a ttlMs range error, not retried', () => {
    const verdict = classify(grpc(11, 'OUT_OF_RANGE', 'etcdserver: too large lease TTL'), 'leaseGrant', 'p/');
    expect(verdict.kind).toBe('fatal');
    expect((verdict as { error: Error }).error).toBeInstanceOf(LeaseArgumentRangeError);
    expect((verdict as { error: Error }).error.message).toMatch(/^ttlMs: too large/);
  });
});
