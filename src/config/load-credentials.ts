import { readFileSync } from 'node:fs';
import type { IOptions } from 'etcd3';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { redactCredentials } from './redact.js';
import { checkTlsMaterial, type TlsMaterialNames } from './tls-material.js';

/** Paths of PEM files. All optional; `certFile` and `keyFile` go together. */
export interface EtcdTlsFiles {
  /** CA certificate(s) that signed the etcd members' server certificates. Default: Node's bundled roots. */
  caFile?: string;
  /** Client certificate, for etcd's `--client-cert-auth` (its CN is the etcd user when auth is on). */
  certFile?: string;
  /** The client certificate's private key, unencrypted. */
  keyFile?: string;
}

/** etcd3's `credentials` shape: what `EtcdLeaseProviderOptions.credentials` takes. */
export type EtcdCredentials = NonNullable<IOptions['credentials']>;

/**
 * Reads TLS files into `credentials` for `EtcdLeaseProvider` (or a plain `etcd3` client), checking that
 * each is PEM and that the key belongs to the certificate. Errors name the field (`caFile`, …) and the
 * path, never a file's contents. The result redacts the private key under `util.inspect`/`JSON.stringify`.
 * Returns undefined when no file is given.
 */
export function loadEtcdCredentials(files: EtcdTlsFiles): EtcdCredentials | undefined {
  return readTlsFiles({ ca: 'caFile', cert: 'certFile', key: 'keyFile' }, { ca: files.caFile, cert: files.certFile, key: files.keyFile });
}

/** Shared with the environment loader, which names the variables instead of the fields. */
export function readTlsFiles(
  names: TlsMaterialNames,
  paths: { ca?: string | undefined; cert?: string | undefined; key?: string | undefined },
): EtcdCredentials | undefined {
  const ca = readPem(names.ca, paths.ca);
  const cert = readPem(names.cert, paths.cert);
  const key = readPem(names.key, paths.key);
  if (ca === undefined && cert === undefined && key === undefined) return undefined;
  checkTlsMaterial(names, { ca, cert, key });
  const credentials: Partial<EtcdCredentials> = {};
  // Without a CA file gRPC falls back to its default roots; etcd3's type insists on the field, gRPC does not.
  if (ca !== undefined) credentials.rootCertificate = ca;
  if (cert !== undefined) credentials.certChain = cert;
  if (key !== undefined) credentials.privateKey = key;
  return redactCredentials(credentials as EtcdCredentials);
}

function readPem(name: string, path: string | undefined): Buffer | undefined {
  if (path === undefined) return undefined;
  if (typeof path !== 'string' || path.length === 0) {
    throw new LeaseArgumentTypeError(name, 'must be a non-empty file path');
  }
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new LeaseArgumentTypeError(name, `cannot read ${JSON.stringify(path)} (${code})`);
  }
}
