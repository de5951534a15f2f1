import { castGrpcError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { endpointCause } from './endpoint-cause.js';

/** An error as grpc-js raises it and etcd3 casts it. */
const grpc = (code: number, name: string, details: string) =>
  castGrpcError(Object.assign(new Error(`${code} ${name}: ${details}`), { code, details }));
const unavailable = grpc(14, 'UNAVAILABLE', 'No connection established');
const at = '127.0.0.1:2379';

describe('endpointCause', () => {
  it('a deadline is a timeout, whatever the probe says', () => {
    expect(endpointCause(at, grpc(4, 'DEADLINE_EXCEEDED', 'Deadline exceeded'), { kind: 'plaintext' }, false)).toMatchObject({ kind: 'timeout' });
  });

  it.each([
    ['ECONNREFUSED', 'refused', 'refused the connection (ECONNREFUSED)'],
    ['ETIMEDOUT', 'timeout', 'did not answer a new connection in time'],
    ['ENOTFOUND', 'dns', 'could not be looked up in DNS (ENOTFOUND)'],
    ['EAI_AGAIN', 'dns', 'could not be looked up in DNS (EAI_AGAIN)'],
    ['ECONNRESET', 'unavailable', 'closed the connection (ECONNRESET)'],
  ])('UNAVAILABLE with a probe that got no answer (%s) is %s', (code, kind, detail) => {
    expect(endpointCause(at, unavailable, { kind: 'no-answer', code }, false)).toEqual({ endpoint: at, kind, detail });
  });

  it('TLS findings name the side that refused, with its code', () => {
    expect(endpointCause(at, unavailable, { kind: 'tls-refused', stage: 'server-cert', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }, true).detail).toBe(
      'failed the TLS handshake: its certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    );
    expect(endpointCause(at, unavailable, { kind: 'tls-refused', stage: 'peer-alert', code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' }, true)).toMatchObject({ kind: 'tls' });
    expect(endpointCause(at, unavailable, { kind: 'tls-silent' }, true)).toMatchObject({ kind: 'tls' });
  });

  it('a TLS mismatch is TLS; an endpoint that answers as configured was unavailable in etcd itself', () => {
    expect(endpointCause(at, unavailable, { kind: 'plaintext' }, true).detail).toBe('serves plaintext, but the client uses TLS');
    expect(endpointCause(at, unavailable, { kind: 'tls-ok' }, false).detail).toBe('serves TLS, but the client connects in plaintext');
    const noLeader = grpc(14, 'UNAVAILABLE', 'etcdserver: no leader');
    expect(endpointCause(at, noLeader, { kind: 'plaintext' }, false)).toEqual({ endpoint: at, kind: 'unavailable', detail: `was unavailable: ${noLeader.message}` });
  });

  it('an UNAVAILABLE not probed yet keeps gRPC\'s words; other failures keep theirs', () => {
    expect(endpointCause(at, unavailable, undefined, false)).toMatchObject({ kind: 'unavailable', detail: `was unavailable: ${unavailable.message}` });
    expect(endpointCause(at, grpc(13, 'INTERNAL', 'boom'), undefined, false)).toMatchObject({ kind: 'error' });
  });
});
