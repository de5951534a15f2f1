import { noop } from 'cockatiel';
import { Etcd3, GRPCUnavailableError, type IOptions } from 'etcd3';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const cert = await pki.clientCert('harness-user');
    const credentials = {
      rootCertificate: readFileSync(pki.ca.cert),
      certChain: readFileSync(cert.cert),
      privateKey: readFileSync(cert.key),
    };
    await client([cluster.endpoint(0)], credentials).put('tls').value('v');
    for (const endpoint of cluster.endpoints()) {
      expect(await client([endpoint], credentials).get('tls').string()).toBe('v');
    }
  });

  it('a client without a certificate is refused', { timeout: TIMEOUT_MS }, async () => {
    const noCert = client(cluster.endpoints(), { rootCertificate: readFileSync(pki.ca.cert) });
    await expect(noCert.get('tls').options({ deadline: Date.now() + 2000 })).rejects.toBeInstanceOf(GRPCUnavailableError);
  });

  it('a restarted member serves TLS again and the cluster reports healthy', { timeout: TIMEOUT_MS }, async () => {
    await cluster.kill(1);
    await cluster.restart(1);
    await cluster.waitHealthy();
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

  it('a plaintext client gets nothing from a TLS member', { timeout: TIMEOUT_MS }, async () => {
    const plain = client(cluster.endpoints().map((e) => e.replace('https://', 'http://')));
    await expect(plain.get('server-only').options({ deadline: Date.now() + 2000 })).rejects.toThrow();
  });
});
