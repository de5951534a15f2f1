import { inspect, type InspectOptionsStylized } from 'node:util';
import type { IOptions } from 'etcd3';

const REDACTED = '[redacted]';

type Auth = NonNullable<IOptions['auth']>;
type Credentials = NonNullable<IOptions['credentials']>;

/** How `auth` shows in logs: the user name, never the password. */
function describeAuth(auth: Auth): { username: string; password: string } {
  return { username: String(auth.username), password: REDACTED };
}

/** How `credentials` show in logs: which pieces are there; certificates by size, the private key not at all. */
function describeCredentials(credentials: Credentials): Record<string, string> {
  const shown: Record<string, string> = {};
  const size = (value: unknown) => (Buffer.isBuffer(value) ? `[PEM, ${value.length} bytes]` : `[${typeof value}]`);
  if (credentials.rootCertificate !== undefined) shown.rootCertificate = size(credentials.rootCertificate);
  if (credentials.certChain !== undefined) shown.certChain = size(credentials.certChain);
  if (credentials.privateKey !== undefined) shown.privateKey = REDACTED;
  return shown;
}

/**
 * Makes `util.inspect`, `console.log` and `JSON.stringify` of an `auth` or `credentials` object show
 * its redacted form. Both hooks are non-enumerable own properties: etcd3 and gRPC, which read the
 * fields by name, see the object unchanged. An object that cannot take them (frozen) is left as it is.
 * Returns the same object.
 */
export function redactAuth<T extends Auth | undefined>(auth: T): T {
  if (auth !== undefined) hide(auth, () => describeAuth(auth));
  return auth;
}

export function redactCredentials<T extends Credentials | undefined>(credentials: T): T {
  if (credentials !== undefined) hide(credentials, () => describeCredentials(credentials));
  return credentials;
}

function hide(target: object, describe: () => object): void {
  if (!Object.isExtensible(target) || Object.prototype.hasOwnProperty.call(target, inspect.custom)) return;
  Object.defineProperties(target, {
    [inspect.custom]: {
      value: (_depth: number, options: InspectOptionsStylized, inspectFn: typeof inspect) => inspectFn(describe(), options),
      enumerable: false,
    },
    toJSON: { value: describe, enumerable: false },
  });
}

/**
 * What the provider shows of itself (`util.inspect`, `JSON.stringify`): its settings with secrets
 * redacted, and none of its internals — the etcd3 client inside holds the password and the private key.
 */
export function describeSettings(
  settings: {
    hosts: readonly string[] | undefined;
    prefix: string;
    deadlineMs: number;
    attemptTimeoutMs: number;
    leaseBucketMs: number;
    maxBatchSize: number;
    renewCoalesceMs: number;
    readConsistency: string;
  },
  secrets: { auth?: Auth; credentials?: Credentials },
): Record<string, unknown> {
  return {
    // user:password@ in an endpoint would be a mistake (etcd3 does not use it), but not one to print.
    hosts: settings.hosts?.map((h) => h.replace(/\/\/[^/@]*@/, '//')) ?? '[etcd3 client given]',
    prefix: settings.prefix,
    deadlineMs: settings.deadlineMs,
    attemptTimeoutMs: settings.attemptTimeoutMs,
    leaseBucketMs: settings.leaseBucketMs,
    maxBatchSize: settings.maxBatchSize,
    renewCoalesceMs: settings.renewCoalesceMs,
    readConsistency: settings.readConsistency,
    ...(secrets.auth ? { auth: describeAuth(secrets.auth) } : {}),
    ...(secrets.credentials ? { credentials: describeCredentials(secrets.credentials) } : {}),
  };
}
