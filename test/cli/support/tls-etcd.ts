import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';

export interface TlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/**
 * One etcd member on 127.0.0.1 that speaks only TLS and demands a client certificate, with a
 * throwaway CA made by openssl. The harness clusters are plaintext, so TLS flags need their own.
 */
export class TlsEtcd {
  private constructor(
    readonly endpoint: string,
    readonly files: TlsFiles,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(): Promise<TlsEtcd> {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-lease-cli-tls-'));
    const path = (name: string): string => join(dir, name);
    const openssl = (...args: string[]): void => {
      execFileSync('openssl', args, { stdio: 'ignore' });
    };
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', path('ca.key'), '-out', path('ca.crt'), '-days', '1', '-subj', '/CN=etcd-lease test CA');
    const sign = (name: string, cn: string, ext: string): void => {
      openssl('req', ...ec, '-keyout', path(`${name}.key`), '-out', path(`${name}.csr`), '-subj', `/CN=${cn}`);
      writeFileSync(path(`${name}.ext`), ext);
      openssl('x509', '-req', '-in', path(`${name}.csr`), '-CA', path('ca.crt'), '-CAkey', path('ca.key'), '-CAcreateserial', '-out', path(`${name}.crt`), '-days', '1', '-extfile', path(`${name}.ext`));
    };
    sign('server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
    // A CN that is no etcd user: with auth on, only the password can authenticate this client.
    sign('client', 'no-such-user', 'extendedKeyUsage=clientAuth\n');

    const [clientPort, peerPort] = await freePorts(2);
    const endpoint = `https://127.0.0.1:${clientPort}`;
    const child = spawn(
      process.env.ETCD_BIN || 'etcd',
      [
        '--name=tls0',
        `--data-dir=${path('data')}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=tls0=http://127.0.0.1:${peerPort}`,
        `--cert-file=${path('server.crt')}`,
        `--key-file=${path('server.key')}`,
        `--trusted-ca-file=${path('ca.crt')}`,
        '--client-cert-auth',
      ],
      { stdio: 'ignore' },
    );
    const etcd = new TlsEtcd(endpoint, { ca: path('ca.crt'), cert: path('client.crt'), key: path('client.key') }, child, dir);
    try {
      await etcd.waitServing();
      return etcd;
    } catch (error) {
      await etcd.stop();
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
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await once(this.child, 'exit');
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitServing(): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (true) {
      const client = this.client();
      try {
        await client.get('probe').options({ deadline: new Date(Date.now() + 1000) });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`TLS etcd did not serve in time: ${(error as Error).message}`);
      } finally {
        client.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<ReturnType<typeof createServer>>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
