import { describe, expect, it } from 'vitest';
import { parseEndpoint, type Endpoint } from '../config/endpoint.js';
import type { TlsProbeResult } from './tls-probe.js';
import { tlsVerdict, type ClientTlsSetup } from './tls-verdict.js';

const a = parseEndpoint('https://127.0.0.1:2379')!;
const b = parseEndpoint('https://127.0.0.1:22379')!;
const secure: ClientTlsSetup = { secure: true, hasClientCertificate: false };
const withCert: ClientTlsSetup = { secure: true, hasClientCertificate: true };
const plaintext: ClientTlsSetup = { secure: false, hasClientCertificate: false };
const probes = (...results: Array<[Endpoint, TlsProbeResult]>) => results;

describe('tlsVerdict', () => {
  it('no verdict while any endpoint works as configured: one bad member is routed around, not fatal', () => {
    const untrusted: TlsProbeResult = { kind: 'tls-refused', stage: 'server-cert', code: 'CERT_HAS_EXPIRED' };
    expect(tlsVerdict(secure, probes([a, untrusted], [b, { kind: 'tls-ok' }]))).toBeUndefined();
    expect(tlsVerdict(plaintext, probes([a, { kind: 'tls-ok' }], [b, { kind: 'plaintext' }]))).toBeUndefined();
  });

  it('a TLS client dropped after the handshake without an alert is not proof of a TLS problem', () => {
    expect(tlsVerdict(withCert, probes([a, { kind: 'tls-silent' }], [b, { kind: 'tls-silent' }]))).toBeUndefined();
    expect(tlsVerdict(plaintext, probes([a, { kind: 'tls-silent' }]))?.detail).toMatch(/serves TLS/);
  });

  it('no verdict when nothing answered: an outage is retried, not reported as TLS', () => {
    expect(tlsVerdict(secure, probes([a, { kind: 'no-answer', code: 'ECONNREFUSED' }], [b, { kind: 'no-answer' }]))).toBeUndefined();
    expect(tlsVerdict(plaintext, probes([a, { kind: 'no-answer', code: 'ECONNRESET' }]))).toBeUndefined();
  });

  it('an untrusted server certificate names the CA option and the code', () => {
    const finding = tlsVerdict(secure, probes([a, { kind: 'tls-refused', stage: 'server-cert', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }]));
    expect(finding?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(finding?.detail).toMatch(/not trusted.*credentials\.rootCertificate/);
  });

  it('a certificate for another host says so', () => {
    const finding = tlsVerdict(secure, probes([a, { kind: 'tls-refused', stage: 'server-cert', code: 'ERR_TLS_CERT_ALTNAME_INVALID' }]));
    expect(finding?.detail).toMatch(/does not name 127\.0\.0\.1/);
  });

  it('a server alert means a missing client certificate, or a refused one when one was given', () => {
    const alert: TlsProbeResult = { kind: 'tls-refused', stage: 'peer-alert', code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' };
    expect(tlsVerdict(secure, probes([a, alert]))?.detail).toMatch(/requires a client certificate.*credentials\.certChain/);
    expect(tlsVerdict(withCert, probes([a, alert]))?.detail).toMatch(/refused the client certificate/);
  });

  it('TLS against a plaintext endpoint, and plaintext against a TLS endpoint, are both findings', () => {
    expect(tlsVerdict(secure, probes([a, { kind: 'plaintext' }]))?.detail).toMatch(/serves plaintext but the client uses TLS/);
    expect(tlsVerdict(plaintext, probes([a, { kind: 'tls-ok' }]))?.detail).toMatch(/serves TLS but the client connects in plaintext/);
    expect(
      tlsVerdict(plaintext, probes([a, { kind: 'tls-refused', stage: 'peer-alert', code: 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' }]))?.detail,
    ).toMatch(/serves TLS/);
  });
});
