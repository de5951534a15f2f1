import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { EtcdLeaseProvider, type EtcdCredentials, type EtcdLeaseProviderOptions } from '../../../src/index.js';
import { startCluster, type ClusterOptions, type TestCluster } from '../../harness/cluster.js';
import { createTestPki, type CertFiles, type TestPki } from '../../harness/test-pki.js';
import { CountingProxy, portOf } from './counting-proxy.js';

export interface SecureClusterOptions {
  /** Serve TLS (with a fresh test PKI). @default true */
  tls?: boolean;
  /** --client-cert-auth. @default false */
  clientCertAuth?: boolean;
  size?: number;
  extraArgs?: string[];
}

/**
 * One etcd cluster per test file, optionally with TLS from a PKI generated for the file; providers made
 * here are closed afterwards, and counting proxies can be put in front of every member.
 */
export function useSecureCluster(options: SecureClusterOptions = {}) {
  let pki: TestPki | undefined;
  let cluster: TestCluster | undefined;
  const closers: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    const clusterOptions: ClusterOptions = { size: options.size, extraArgs: options.extraArgs };
    if (options.tls !== false) {
      pki = await createTestPki();
      clusterOptions.tls = { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key, clientCertAuth: options.clientCertAuth };
    }
    cluster = await startCluster(clusterOptions);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled(closers.splice(0).map((close) => close()));
    await cluster?.stop();
    await pki?.remove();
  }, 120_000);

  const self = {
    get cluster(): TestCluster {
      if (!cluster) throw new Error('cluster not started yet: use it inside a test or hook');
      return cluster;
    },
    get pki(): TestPki {
      if (!pki) throw new Error('no PKI: the cluster runs without TLS');
      return pki;
    },
    /** etcd3 `credentials` from PEM files: the cluster's CA unless another is given, plus an optional client certificate. */
    credentials(clientCert?: CertFiles, caFile?: string): EtcdCredentials {
      return {
        rootCertificate: readFileSync(caFile ?? self.pki.ca.cert),
        ...(clientCert ? { certChain: readFileSync(clientCert.cert), privateKey: readFileSync(clientCert.key) } : {}),
      };
    },
    provider(extra: Partial<EtcdLeaseProviderOptions> & Pick<EtcdLeaseProviderOptions, 'prefix'>): EtcdLeaseProvider {
      const provider = new EtcdLeaseProvider({ hosts: self.cluster.endpoints(), ...extra });
      closers.push(() => provider.close());
      return provider;
    },
    /** A counting proxy in front of every member; `connections()` sums what clients opened through them. */
    async countingEndpoints(scheme: 'http' | 'https'): Promise<{ hosts: string[]; connections: () => number }> {
      const proxies = await Promise.all(self.cluster.endpoints().map((e) => CountingProxy.forward(portOf(e))));
      closers.push(() => Promise.all(proxies.map((p) => p.close())).then(() => undefined));
      return {
        hosts: proxies.map((p) => p.endpoint(scheme)),
        connections: () => proxies.reduce((n, p) => n + p.connections, 0),
      };
    },
    onClose(close: () => Promise<void> | void): void {
      closers.push(close);
    },
  };
  return self;
}
