import { describe, expect, it } from 'vitest';
import { EtcdLeaseProvider, EtcdTlsError, loadEtcdCredentials } from '../../src/index.js';
import { timed } from './support/secrets.js';
import { useSecureCluster } from './support/secure-cluster.js';

// Members serve TLS (server certificates signed by the test CA; no client certificates required).
// A TLS misconfiguration must fail within a few seconds although the call may retry for 30 s, with
// EtcdTlsError saying what to fix, and after a handful of connections, not a storm of them.
const etcd = useSecureCluster({ tls: true });
const DEADLINE_MS = 30_000;
/** Fast means: no retry loop ran. One probe handshake per member takes milliseconds. */
const FAST_MS = 3_000;
/** What one failing call may cost: gRPC's connection plus one TLS probe (and one cleartext probe) per member. */
const FEW_CONNECTIONS = 12;

async function expectTlsFailure(provider: EtcdLeaseProvider, connections: () => number, detail: RegExp): Promise<EtcdTlsError> {
  const { error, ms } = await timed(() => provider.acquireLease('k', 'A', 5000));
  expect(error).toBeInstanceOf(EtcdTlsError);
  const tlsError = error as EtcdTlsError;
  expect(tlsError.code).toBe('ELEASE_TLS');
  expect(tlsError.retryable).toBe(false);
  expect(tlsError.message).toMatch(detail);
  expect(ms).toBeLessThan(FAST_MS);
  expect(connections()).toBeLessThanOrEqual(FEW_CONNECTIONS);
  // The next call fails as fast: the verdict is reused, not re-learnt through retries.
  const again = await timed(() => provider.getLeaseOwner('k'));
  expect(again.error).toBeInstanceOf(EtcdTlsError);
  expect(again.ms).toBeLessThan(FAST_MS);
  return tlsError;
}

describe('TLS to etcd', () => {
  it('over https with the CA as rootCertificate every operation works', async () => {
    const p = etcd.provider({ prefix: 'tls/ops/', credentials: etcd.credentials() });
    expect(await p.acquireLease('k', 'A', 5000)).toMatchObject({ acquired: true, owner: 'A' });
    expect(await p.acquireLease('k', 'B', 5000)).toEqual({ acquired: false, owner: 'A' });
    expect(await p.renewLease('k', 'A', 5000)).toBe(true);
    expect(await p.transferLease('k', 'A', 'B', 5000)).toBe(true);
    expect(await p.getLease('k')).toMatchObject({ owner: 'B' });
    await p.releaseLease('k', 'B');
    expect(await p.getLeaseOwner('k')).toBeUndefined();
  });

  it('credentials loaded from a CA file work the same', async () => {
    const credentials = loadEtcdCredentials({ caFile: etcd.pki.ca.cert })!;
    const p = etcd.provider({ prefix: 'tls/files/', credentials });
    expect(await p.acquireLease('k', 'A', 5000)).toMatchObject({ acquired: true });
  });

  it('an untrusted server certificate fails fast with EtcdTlsError naming rootCertificate', async () => {
    const { hosts, connections } = await etcd.countingEndpoints('https');
    const p = etcd.provider({
      hosts,
      prefix: 'tls/untrusted/',
      credentials: etcd.credentials(undefined, etcd.pki.untrustedCa.cert),
      deadlineMs: DEADLINE_MS,
    });
    const error = await expectTlsFailure(p, connections, /server certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\).*credentials\.rootCertificate/);
    expect(error.cause).toBeInstanceOf(Error); // the gRPC error, kept for debugging
  });

  it('https endpoints without a CA use the default roots, which do not know a private CA: EtcdTlsError', async () => {
    const { hosts, connections } = await etcd.countingEndpoints('https');
    const p = etcd.provider({ hosts, prefix: 'tls/default-roots/', deadlineMs: DEADLINE_MS });
    await expectTlsFailure(p, connections, /is not trusted/);
  });

  it('a plaintext client against TLS endpoints fails fast with EtcdTlsError saying to use https', async () => {
    const { hosts, connections } = await etcd.countingEndpoints('http');
    const p = etcd.provider({ hosts, prefix: 'tls/plaintext/', deadlineMs: DEADLINE_MS });
    await expectTlsFailure(p, connections, /serves TLS but the client connects in plaintext: use https:\/\//);
  });

  it('an unreachable endpoint among TLS members is retried around, not reported as TLS', async () => {
    // The first attempts may land on the dead endpoint; its probe answers nothing and the members'
    // handshakes succeed, so there is no TLS verdict and the call retries onto a member.
    const endpoints = etcd.cluster.endpoints();
    const p = etcd.provider({ prefix: 'tls/mixed/', credentials: etcd.credentials(), hosts: ['https://127.0.0.1:1', ...endpoints] });
    for (let i = 0; i < 5; i++) expect(await p.acquireLease(`k${i}`, 'A', 5000)).toMatchObject({ acquired: true });
  });
});
