import { noop } from 'cockatiel';
import { Etcd3, GRPCUnavailableError, type IOptions } from 'etcd3';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdLeaseProvider, EtcdTlsError } from '../../src/index.js';
import { startCluster, type TestCluster } from './cluster.js';
import { createTestPki, type TestPki } from './test-pki.js';

/**
 * The harness's TLS option: members serve https client URLs through the same fault proxies, and the
 * harness's own probes (health, leader) work with TLS and with --client-cert-auth.
 */

const TIMEOUT_MS = 60_000;
let pki: TestPki;
const clients: Etcd3[] = [];

function client(hosts: string[], credentials?: IOptions['credentials']): Etcd3 {
  const c = new Etcd3({ hosts, credentials, faultHandling: { host: () => noop, global: noop } });
  clients.push(c);
  return c;
}

/** A client certificate signed by the test CA, and the credentials that present it. */
async function clientCredentials(cn: string) {
  const cert = await pki.clientCert(cn);
  const credentials = {
    rootCertificate: readFileSync(pki.ca.cert),
    certChain: readFileSync(cert.cert),
    privateKey: readFileSync(cert.key),
  };
  return { cert, credentials };
}

/** The certificate `endpoint` presents in a TLS handshake that trusts the test CA (DER bytes). */
function servedCertificate(endpoint: string, clientCert?: { cert: string; key: string }): Promise<Buffer> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: hostname,
      port: Number(port),
      ca: readFileSync(pki.ca.cert),
      ...(clientCert && { cert: readFileSync(clientCert.cert), key: readFileSync(clientCert.key) }),
    });
    socket.once('secureConnect', () => {
      resolve(socket.getPeerCertificate().raw);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  pki = await createTestPki();
}, TIMEOUT_MS);
afterAll(async () => {
  for (const c of clients.splice(0)) c.close();
  await pki?.remove();
});

describe('TLS with client certificate auth', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster({
      tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key, clientCertAuth: true },
    });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
  }, TIMEOUT_MS);

  it('hands out https endpoints, and finds a leader over TLS', { timeout: TIMEOUT_MS }, async () => {
    expect(cluster.endpoints()).toHaveLength(3);
    for (const endpoint of cluster.endpoints()) expect(endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await cluster.leader()).toBeGreaterThanOrEqual(0);
  });

  it('a client with the CA and a client certificate writes and reads through every member', { timeout: TIMEOUT_MS }, async () => {
    const { credentials } = await clientCredentials('harness-user');
    await client([cluster.endpoint(0)], credentials).put('tls').value('v');
    for (const endpoint of cluster.endpoints()) {
      expect(await client([endpoint], credentials).get('tls').string()).toBe('v');
    }
  });

  it('a client without a certificate is refused', { timeout: TIMEOUT_MS }, async () => {
    const noCert = client(cluster.endpoints(), { rootCertificate: readFileSync(pki.ca.cert) });
    await expect(noCert.get('tls').options({ deadline: Date.now() + 2000 })).rejects.toBeInstanceOf(GRPCUnavailableError);
  });

  it('a restarted member serves TLS again, with the same certificate, and answers a read of its own', { timeout: TIMEOUT_MS }, async () => {
    const { cert, credentials } = await clientCredentials('restart-user');
    const memberCertificate = new X509Certificate(readFileSync(pki.server.cert)).raw;
    // A follower: with the leader up, the write below needs no election to commit.
    const leader = await cluster.leader();
    const restarted = (leader + 1) % cluster.size;
    await cluster.kill(restarted);
    // Written while the member is down: only a member that rejoined and caught up can answer it.
    await client([cluster.endpoint(leader)], credentials).put('restart').value('while-down');
    await cluster.restart(restarted);
    await cluster.waitHealthy();
    expect(cluster.members()[restarted]!.state).toBe('running');
    expect(await servedCertificate(cluster.endpoint(restarted), cert)).toEqual(memberCertificate);
    // A linearizable read sent to that member alone, over TLS with a client certificate.
    expect(await client([cluster.endpoint(restarted)], credentials).get('restart').string()).toBe('while-down');
  });
});

describe('TLS without client certificate auth', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster({ size: 1, tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key } });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
  }, TIMEOUT_MS);

  it('a client trusting the CA needs no certificate of its own', { timeout: TIMEOUT_MS }, async () => {
    const c = client(cluster.endpoints(), { rootCertificate: readFileSync(pki.ca.cert) });
    await c.put('server-only').value('v');
    expect(await c.get('server-only').string()).toBe('v');
  });

  it('a plaintext client is told the member serves TLS (EtcdTlsError, ELEASE_TLS)', { timeout: TIMEOUT_MS }, async () => {
    const plain = new EtcdLeaseProvider({ hosts: cluster.endpoints().map((e) => e.replace('https://', 'http://')), deadlineMs: 10_000 });
    try {
      const error: unknown = await plain.getLeaseOwner('server-only').then(
        (owner) => `resolved ${owner}`,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EtcdTlsError);
      expect(error).toMatchObject({ code: 'ELEASE_TLS', message: expect.stringMatching(/serves TLS but the client connects in plaintext/) });
    } finally {
      await plain.close();
    }
  });
});
