import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanUpOnSignals, onProcessExit } from '../../launcher/exit-cleanup.js';

const run = promisify(execFile);

/** PEM files on disk: what etcd's flags and `loadEtcdCredentials` take. */
export interface CertFiles {
  readonly cert: string;
  readonly key: string;
}

/**
 * A throwaway PKI for TLS tests, generated with `openssl` into its own temp dir:
 * - `ca`: the CA every member and client trusts;
 * - `server`: the members' certificate, SAN IP:127.0.0.1, usable for serverAuth *and* clientAuth
 *   (etcd 3.4's built-in gRPC gateway dials its own member with it, which `--client-cert-auth` checks);
 * - `untrustedCa`: a second CA nobody trusts, to sign certificates that must be refused;
 * - `clientCert(cn)`: a client certificate whose CN etcd takes as the user name under `--client-cert-auth`.
 */
export interface TestPki {
  readonly dir: string;
  readonly ca: CertFiles;
  readonly server: CertFiles;
  readonly untrustedCa: CertFiles;
  /** A clientAuth certificate with this CN, signed by `ca` (or by `untrustedCa` when `signedBy` says so). */
  clientCert(cn: string, signedBy?: 'ca' | 'untrustedCa'): Promise<CertFiles>;
  /** A serverAuth certificate signed by `ca` with this subjectAltName (e.g. 'DNS:other.example'). */
  serverCert(subjectAltName: string): Promise<CertFiles>;
  /** Removes the directory; idempotent. */
  remove(): Promise<void>;
}

/** EC P-256 keeps generation fast (milliseconds) on a shared 2-core machine. */
const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-pki-'));
  // A test run has no signal handling of its own: an interrupted one must not leave keys behind.
  cleanUpOnSignals();
  const forget = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
  const path = (name: string) => join(dir, name);
  let serial = 0;

  const selfSignedCa = async (name: string, cn: string): Promise<CertFiles> => {
    const files = { cert: path(`${name}.crt`), key: path(`${name}.key`) };
    await openssl(['req', '-x509', ...KEY_ARGS, '-keyout', files.key, '-out', files.cert, '-days', '2', '-subj', `/CN=${cn}`]);
    return files;
  };

  const signed = async (name: string, cn: string, issuer: CertFiles, extensions: string): Promise<CertFiles> => {
    const files = { cert: path(`${name}.crt`), key: path(`${name}.key`) };
    const csr = path(`${name}.csr`);
    const ext = path(`${name}.ext`);
    await writeFile(ext, extensions);
    await openssl(['req', ...KEY_ARGS, '-keyout', files.key, '-out', csr, '-subj', `/CN=${cn}`]);
    await openssl([
      'x509', '-req', '-in', csr, '-CA', issuer.cert, '-CAkey', issuer.key,
      '-set_serial', String(++serial), '-out', files.cert, '-days', '2', '-extfile', ext,
    ]);
    return files;
  };

  try {
    const ca = await selfSignedCa('ca', 'etcd-lease-provider test CA');
    const untrustedCa = await selfSignedCa('untrusted-ca', 'untrusted test CA');
    const server = await signed(
      'server',
      'etcd-server',
      ca,
      'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n',
    );
    let clients = 0;
    return {
      dir,
      ca,
      server,
      untrustedCa,
      clientCert: (cn, signedBy = 'ca') =>
        signed(`client-${++clients}`, cn, signedBy === 'ca' ? ca : untrustedCa, 'extendedKeyUsage=clientAuth\n'),
      serverCert: (subjectAltName) =>
        signed(`server-${++clients}`, 'other-server', ca, `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n`),
      remove: async () => {
        await rm(dir, { recursive: true, force: true });
        forget();
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    forget();
    throw error;
  }
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
}
