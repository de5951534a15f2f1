import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/** What each piece is called where it came from: an option path or an environment variable. */
export interface TlsMaterialNames {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** PEM contents; any piece may be absent. */
interface TlsMaterial {
  readonly ca?: unknown;
  readonly cert?: unknown;
  readonly key?: unknown;
}

/**
 * Checks TLS material before any connection is made, so a wrong file fails at construction naming the
 * option or variable instead of as a connection error later. Messages carry Node's error code and never
 * the contents: a private key must not end up in a log because it was malformed.
 */
export function checkTlsMaterial(names: TlsMaterialNames, material: TlsMaterial): void {
  const ca = pem(names.ca, material.ca);
  const cert = pem(names.cert, material.cert);
  const key = pem(names.key, material.key);
  if (ca !== undefined) certificate(names.ca, ca);
  if ((cert === undefined) !== (key === undefined)) {
    const missing = cert === undefined ? names.cert : names.key;
    const given = cert === undefined ? names.key : names.cert;
    throw new LeaseArgumentTypeError(missing, `must be given together with ${given} (a client certificate and its private key)`);
  }
  if (cert === undefined || key === undefined) return;
  const x509 = certificate(names.cert, cert);
  const privateKey = parsePrivateKey(names.key, key);
  if (!x509.checkPrivateKey(privateKey)) {
    throw new LeaseArgumentTypeError(names.key, `is not the private key of the certificate in ${names.cert}`);
  }
}

function pem(name: string, value: unknown): Buffer | undefined {
  if (value === undefined) return undefined;
  if (!Buffer.isBuffer(value)) throw new LeaseArgumentTypeError(name, `must be a Buffer holding PEM text, got ${typeof value}`);
  return value;
}

function certificate(name: string, value: Buffer): X509Certificate {
  try {
    return new X509Certificate(value);
  } catch (error) {
    throw new LeaseArgumentTypeError(name, `is not a PEM certificate (${codeOf(error)})`);
  }
}

function parsePrivateKey(name: string, value: Buffer): KeyObject {
  try {
    return createPrivateKey(value);
  } catch (error) {
    const why = isEncryptedPem(value) ? 'is encrypted; give an unencrypted PEM private key' : `is not a PEM private key (${codeOf(error)})`;
    // `cause` deliberately left out: the thrown error is all the caller needs, and nothing of the key leaves here.
    throw new LeaseArgumentTypeError(name, why);
  }
}

/** PKCS#8 `ENCRYPTED PRIVATE KEY` or a legacy `Proc-Type: 4,ENCRYPTED` header: Node's error codes for these vary by version. */
function isEncryptedPem(value: Buffer): boolean {
  const text = value.toString('latin1');
  return text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || text.includes('Proc-Type: 4,ENCRYPTED');
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}
