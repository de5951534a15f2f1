import type { EtcdLeaseProviderOptions } from '../src/config/options.js';
import { readTlsFiles } from '../src/config/load-credentials.js';
import { ETCD_ENV_VARIABLES, environmentSource, loadEtcdOptions, type EtcdSetting, type EtcdSettingSource } from '../src/config/load-env.js';
import { UsageError } from './usage-error.js';

/** The default lease prefix of `EtcdLeaseProvider`; the CLI looks where the provider writes. */
const DEFAULT_PREFIX = 'mastra/lease/';
const DEFAULT_ENDPOINTS = '127.0.0.1:2379';
const DEFAULT_TIMEOUT_MS = 5000;

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

type ConnectionFlag = keyof typeof connectionOptions;

/** The flag that overrides each variable of the library's loader (`loadEtcdOptionsFromEnv`). */
const FLAG_OF: Partial<Record<EtcdSetting, ConnectionFlag>> = {
  endpoints: 'endpoints',
  prefix: 'prefix',
  caFile: 'cacert',
  certFile: 'cert',
  keyFile: 'key',
  username: 'user',
  password: 'password',
};

/** One help line per connection flag, in the order `--help` lists them. */
const CONNECTION_LINES: Record<ConnectionFlag, string> = {
  endpoints: `  --endpoints LIST   comma-separated etcd endpoints        [ETCD_ENDPOINTS, default ${DEFAULT_ENDPOINTS}]`,
  prefix: `  --prefix P         lease key prefix                      [ETCD_PREFIX, default ${DEFAULT_PREFIX}]`,
  cacert: '  --cacert FILE      CA certificate (PEM) for TLS          [ETCD_CA_FILE]',
  cert: '  --cert FILE        client certificate (PEM)              [ETCD_CERT_FILE]',
  key: '  --key FILE         client private key (PEM)              [ETCD_KEY_FILE]',
  user: '  --user NAME        etcd user name                        [ETCD_USERNAME]',
  password: '  --password PW      etcd password                         [ETCD_PASSWORD; prefer it: flags show in ps]',
  timeout: `  --timeout MS       deadline per operation, retries included [default ${DEFAULT_TIMEOUT_MS}]`,
};

/**
 * The connection part of a command's help. A command that gives a flag another meaning (the demo's `--prefix` is the
 * parent of its run's prefix; its default is a cluster of its own, not 127.0.0.1:2379) replaces that flag's line, or
 * drops it (`null`) when it lists the flag among its own, so no flag shows twice.
 */
export function connectionHelp(replaced: Partial<Record<ConnectionFlag, string | null>> = {}): string {
  const lines = (Object.keys(CONNECTION_LINES) as ConnectionFlag[])
    .map((flag) => (flag in replaced ? replaced[flag] : CONNECTION_LINES[flag]))
    .filter((line): line is string => typeof line === 'string');
  return `Connection (a flag wins over its variable; the library's loader reads the same):\n${lines.join('\n')}`;
}

export const CONNECTION_HELP = connectionHelp();

/**
 * Where and how to connect, as plain strings: it crosses process boundaries unchanged (the demo
 * hands it to its worker processes), and certificate files are read again by whoever connects.
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

type ConnectionValues = { [K in ConnectionFlag]?: string };

/**
 * The library's settings source with the command line on top: a flag wins over its variable, and errors name
 * whichever gave the value (for one given by neither, both).
 */
function commandLineSource(values: ConnectionValues, env: NodeJS.ProcessEnv): EtcdSettingSource {
  const fromEnv = environmentSource(env);
  const flagValue = (setting: EtcdSetting): string | undefined => {
    const flag = FLAG_OF[setting];
    return flag === undefined ? undefined : values[flag];
  };
  return {
    read: (setting) => flagValue(setting) ?? fromEnv.read(setting) ?? (setting === 'endpoints' ? DEFAULT_ENDPOINTS : undefined),
    nameOf: (setting) => {
      const flag = FLAG_OF[setting];
      if (flag === undefined) return ETCD_ENV_VARIABLES[setting];
      if (flagValue(setting) !== undefined) return `--${flag}`;
      if (fromEnv.read(setting) !== undefined) return ETCD_ENV_VARIABLES[setting];
      return `--${flag} (${ETCD_ENV_VARIABLES[setting]})`;
    },
  };
}

/**
 * The command's connection: flags, else the ETCD_* variables, else the defaults, checked by the library's own
 * loader (endpoints, both-or-neither pairs, TLS files read and matched, prefix text). Its errors are
 * `LeaseArgumentTypeError`s, which the CLI reports as usage errors (exit 2).
 */
export function resolveConnection(values: ConnectionValues, env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  // An empty flag is a mistake on the command line; an empty variable counts as unset, as in the library.
  if (values.endpoints !== undefined && values.endpoints.split(',').every((h) => h.trim() === '')) throw new UsageError('--endpoints: no endpoint given');
  if (values.prefix === '') throw new UsageError('--prefix: must not be empty');
  const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(`--timeout: must be a number of milliseconds above 0, got ${JSON.stringify(values.timeout)}`);
  }

  const source = commandLineSource(values, env);
  const loaded = loadEtcdOptions(source);
  const explicitEndpoints = values.endpoints !== undefined || environmentSource(env).read('endpoints') !== undefined;
  const settings: ConnectionSettings = { hosts: loaded.hosts, prefix: loaded.prefix ?? DEFAULT_PREFIX, timeoutMs, explicitEndpoints };
  const caFile = source.read('caFile');
  const certFile = source.read('certFile');
  const keyFile = source.read('keyFile');
  if (caFile !== undefined) settings.caFile = caFile;
  if (certFile !== undefined) settings.certFile = certFile;
  if (keyFile !== undefined) settings.keyFile = keyFile;
  if (loaded.auth !== undefined) {
    settings.username = loaded.auth.username;
    settings.password = loaded.auth.password;
  }
  return settings;
}

/** etcd3 / EtcdLeaseProvider options; reads the certificate files (checked once already by `resolveConnection`). */
export function clientOptions(settings: ConnectionSettings): Pick<EtcdLeaseProviderOptions, 'auth' | 'credentials'> {
  const options: Pick<EtcdLeaseProviderOptions, 'auth' | 'credentials'> = {};
  if (settings.username !== undefined && settings.password !== undefined) {
    options.auth = { username: settings.username, password: settings.password };
  }
  // Without a CA file gRPC uses its default roots.
  const credentials = readTlsFiles({ ca: '--cacert', cert: '--cert', key: '--key' }, { ca: settings.caFile, cert: settings.certFile, key: settings.keyFile });
  if (credentials !== undefined) options.credentials = credentials;
  return options;
}
