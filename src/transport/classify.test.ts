import { castGrpcError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { EtcdAuthenticationError } from '../errors/authentication.js';
import { EtcdCompactedError } from '../errors/compacted.js';
import { LeaseArgumentRangeError } from '../errors/invalid-argument.js';
import { EtcdNoSpaceError } from '../errors/no-space.js';
import { EtcdRequestRejectedError } from '../errors/rejected.js';
import { EtcdSizeLimitError } from '../errors/size-limit.js';
import { EtcdTlsError } from '../errors/tls.js';
import { KeyChurnError } from '../calls/key-churn.js';
import { classify } from './classify.js';
import { TlsHandshakeFailure } from './tls-diagnosis.js';

/** The typed error of a fatal verdict. */
const fatalError = (verdict: ReturnType<typeof classify>): Error => {
  if (verdict.kind !== 'fatal') throw new Error(`expected a fatal verdict, got ${verdict.kind}`);
  return verdict.error;
};

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
    for (const details of ['etcdserver: too many operations in txn request', 'etcdserver: revision of auth store is old (or not)']) {
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

describe('classify: size limits', () => {
  it("a response over the client's receive limit is a fatal EtcdSizeLimitError naming both sizes, not a retry", () => {
    const error = fatalError(classify(grpc(8, 'RESOURCE_EXHAUSTED', 'Received message larger than max (7057812 vs 4194304)'), 'list', 'p/'));
    expect(error).toBeInstanceOf(EtcdSizeLimitError);
    expect(error).toMatchObject({ code: 'ELEASE_TOO_LARGE', retryable: false, limit: 'grpc-message', sizeBytes: 7057812, limitBytes: 4194304 });
    expect(error.message).toBe("list: a message of 7057812 bytes is over its receiver's gRPC limit of 4194304 bytes; sending it again cannot help");
  });

  it("a request over the server's gRPC limit (grpc-go's wording) is the same typed error", () => {
    const error = fatalError(classify(grpc(8, 'RESOURCE_EXHAUSTED', 'grpc: received message larger than max (2200000 vs. 2097152)'), 'acquireLease', 'p/'));
    expect(error).toMatchObject({ code: 'ELEASE_TOO_LARGE', sizeBytes: 2200000, limitBytes: 2097152 });
  });

  it('a RESOURCE_EXHAUSTED without sizes in its text is still a size limit, by its code alone', () => {
    const error = fatalError(classify(grpc(8, 'RESOURCE_EXHAUSTED', 'something else'), 'list', 'p/'));
    expect(error).toMatchObject({ code: 'ELEASE_TOO_LARGE', sizeBytes: undefined, limitBytes: undefined });
  });

  it('"request is too large" (over --max-request-bytes) is a size limit, not a generic rejection', () => {
    const error = fatalError(classify(grpc(3, 'INVALID_ARGUMENT', 'etcdserver: request is too large'), 'releaseLease', 'p/'));
    expect(error).toBeInstanceOf(EtcdSizeLimitError);
    expect(error).toMatchObject({ limit: 'etcd-request' });
    expect(error.message).toMatch(/^releaseLease: etcd refused a request over its --max-request-bytes \(1572864 bytes/);
  });

  it("etcd's own RESOURCE_EXHAUSTED errors are no size limits: too many requests is retried, a full database fails as the NOSPACE alarm", () => {
    expect(classify(grpc(8, 'RESOURCE_EXHAUSTED', 'etcdserver: too many requests'), 'acquireLease', 'p/')).toEqual({ kind: 'retry' });
    const full = fatalError(classify(grpc(8, 'RESOURCE_EXHAUSTED', 'etcdserver: mvcc: database space exceeded'), 'acquireLease', 'p/'));
    expect(full).toBeInstanceOf(EtcdNoSpaceError);
    expect(full).toMatchObject({ code: 'ELEASE_NO_SPACE', retryable: false });
    expect(full.message).toMatch(/^acquireLease: etcd's NOSPACE alarm is raised.*etcdctl alarm disarm/);
  });

  it('a read at a compacted revision is a fatal EtcdCompactedError', () => {
    const error = fatalError(classify(grpc(11, 'OUT_OF_RANGE', 'etcdserver: mvcc: required revision has been compacted'), 'list', 'p/'));
    expect(error).toBeInstanceOf(EtcdCompactedError);
    expect(error).toMatchObject({ code: 'ELEASE_COMPACTED', retryable: false });
  });
});

describe("classify: an attempt's own verdict", () => {
  it('a key that kept changing under every step of an attempt is retried, never surfaced as it is', () => {
    expect(classify(new KeyChurnError('releaseLease'), 'releaseLease', 'p/')).toEqual({ kind: 'retry' });
  });
});
