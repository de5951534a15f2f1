import { readFileSync } from 'node:fs';
import type { EtcdLeaseProviderOptions } from '../src/config/options.js';
import { UsageError } from './usage-error.js';

/** The default lease prefix of `EtcdLeaseProvider`; the CLI looks where the provider writes. */
export const DEFAULT_PREFIX = 'mastra/lease/';
export const DEFAULT_ENDPOINTS = '127.0.0.1:2379';
export const DEFAULT_TIMEOUT_MS = 5000;

/** parseArgs definitions shared by every command that talks to etcd. */
export const connectionOptions = {
  endpoints: { type: 'string' },
  prefix: { type: 'string' },
  cacert: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  timeout: { type: 'string' },
} as const;

export const CONNECTION_HELP = `Connection (flags win over environment variables):
  --endpoints LIST   comma-separated etcd endpoints        [ETCD_ENDPOINTS, default ${DEFAULT_ENDPOINTS}]
  --prefix P         lease key prefix                      [default ${DEFAULT_PREFIX}]
  --cacert FILE      CA certificate (PEM) for TLS          [ETCD_CA_FILE]
  --cert FILE        client certificate (PEM)              [ETCD_CERT_FILE]
  --key FILE         client private key (PEM)              [ETCD_KEY_FILE]
  --user NAME        etcd user name                        [ETCD_USERNAME]
  --password PW      etcd password                         [ETCD_PASSWORD; prefer it: flags show in ps]
  --timeout MS       deadline per operation, retries included [default ${DEFAULT_TIMEOUT_MS}]`;

/**
 * Where and how to connect, as plain strings: it crosses process boundaries unchanged (the demo
 * hands it to its worker processes), and certificate files are read only by whoever connects.
 */
export interface ConnectionSettings {
  hosts: string[];
  prefix: string;
  timeoutMs: number;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  username?: string;
  password?: string;
  /** True when the endpoints came from a flag or ETCD_ENDPOINTS rather than the default. */
  explicitEndpoints: boolean;
}

type ConnectionValues = { [K in keyof typeof connectionOptions]?: string };

export function resolveConnection(values: ConnectionValues, env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const endpoints = values.endpoints ?? fromEnv('ETCD_ENDPOINTS');
  const hosts = (endpoints ?? DEFAULT_ENDPOINTS)
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
  if (hosts.length === 0) throw new UsageError('--endpoints: no endpoint given');

  const prefix = values.prefix ?? DEFAULT_PREFIX;
  if (prefix.length === 0) throw new UsageError('--prefix: must not be empty');

  const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(`--timeout: must be a number of milliseconds above 0, got ${JSON.stringify(values.timeout)}`);
  }

  const settings: ConnectionSettings = { hosts, prefix, timeoutMs, explicitEndpoints: endpoints !== undefined };
  const caFile = values.cacert ?? fromEnv('ETCD_CA_FILE');
  const certFile = values.cert ?? fromEnv('ETCD_CERT_FILE');
  const keyFile = values.key ?? fromEnv('ETCD_KEY_FILE');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new UsageError('--cert and --key: give both or neither (ETCD_CERT_FILE / ETCD_KEY_FILE)');
  }
  if (caFile !== undefined) settings.caFile = caFile;
  if (certFile !== undefined) settings.certFile = certFile;
  if (keyFile !== undefined) settings.keyFile = keyFile;

  const username = values.user ?? fromEnv('ETCD_USERNAME');
  const password = values.password ?? fromEnv('ETCD_PASSWORD');
  if ((username === undefined) !== (password === undefined)) {
    throw new UsageError('--user and --password: give both or neither (ETCD_USERNAME / ETCD_PASSWORD)');
  }
  if (username !== undefined) settings.username = username;
  if (password !== undefined) settings.password = password;
  return settings;
}

/** etcd3 / EtcdLeaseProvider options; reads the certificate files (an unreadable one is a usage error). */
export function clientOptions(settings: ConnectionSettings): Pick<EtcdLeaseProviderOptions, 'auth' | 'credentials'> {
  const options: Pick<EtcdLeaseProviderOptions, 'auth' | 'credentials'> = {};
  if (settings.username !== undefined && settings.password !== undefined) {
    options.auth = { username: settings.username, password: settings.password };
  }
  if (settings.caFile !== undefined || settings.certFile !== undefined) {
    // grpc wants a root certificate with client certs; without --cacert the system roots are used.
    const credentials: NonNullable<EtcdLeaseProviderOptions['credentials']> = {
      rootCertificate: settings.caFile === undefined ? (undefined as unknown as Buffer) : readPem('--cacert', settings.caFile),
    };
    if (settings.certFile !== undefined) credentials.certChain = readPem('--cert', settings.certFile);
    if (settings.keyFile !== undefined) credentials.privateKey = readPem('--key', settings.keyFile);
    options.credentials = credentials;
  }
  return options;
}

function readPem(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(error as Error).message}`);
  }
}
