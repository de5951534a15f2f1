import { readFileSync } from 'node:fs';
import { Etcd3 } from 'etcd3';
import { startCluster, type TestCluster } from '../../harness/cluster.js';
import { createTestPki, type TestPki } from '../../harness/test-pki.js';

export interface TlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/**
 * One etcd member on 127.0.0.1 that speaks only TLS and demands a client certificate, with a
 * throwaway CA: the test cluster with the TLS options, plus the client files the CLI is given.
 */
export class TlsEtcd {
  private constructor(
    readonly endpoint: string,
    readonly files: TlsFiles,
    private readonly cluster: TestCluster,
    private readonly pki: TestPki,
  ) {}

  static async start(): Promise<TlsEtcd> {
    const pki = await createTestPki();
    try {
      // A CN that is no etcd user: with auth on, only the password can authenticate this client.
      const client = await pki.clientCert('no-such-user');
      const cluster = await startCluster({
        size: 1,
        tls: { ca: pki.ca.cert, cert: pki.server.cert, key: pki.server.key, clientCertAuth: true },
      });
      return new TlsEtcd(cluster.endpoint(0), { ca: pki.ca.cert, cert: client.cert, key: client.key }, cluster, pki);
    } catch (error) {
      await pki.remove();
      throw error;
    }
  }

  /** A client with the CA and client certificate, and optionally a user. */
  client(auth?: { username: string; password: string }): Etcd3 {
    return new Etcd3({
      hosts: [this.endpoint],
      credentials: {
        rootCertificate: readFileSync(this.files.ca),
        certChain: readFileSync(this.files.cert),
        privateKey: readFileSync(this.files.key),
      },
      ...(auth ? { auth } : {}),
    });
  }

  /** Creates `root` with `password` and turns authentication on. */
  async enableAuth(password: string): Promise<void> {
    const client = this.client();
    try {
      await client.user('root').create(password);
      await client.user('root').addRole('root');
      await client.auth.authEnable();
    } finally {
      client.close();
    }
  }

  async stop(): Promise<void> {
    await this.cluster.stop();
    await this.pki.remove();
  }
}
