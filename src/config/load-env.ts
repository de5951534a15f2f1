import type { IOptions } from 'etcd3';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { checkText } from '../keys/key-codec.js';
import { parseEndpoint } from './endpoint.js';
import { readTlsFiles, type EtcdCredentials } from './load-credentials.js';
import { redactAuth } from './redact.js';

/** Connection options read from the environment: spread them into `new EtcdLeaseProvider({ ... })` or `new EtcdPubSub({ ... })`. */
export interface EtcdEnvOptions {
  hosts: string[];
  prefix?: string;
  /** `EtcdPubSub`'s event prefix (`ETCD_EVENT_PREFIX`); `EtcdLeaseProvider` has no events and ignores it. */
  eventPrefix?: string;
  auth?: NonNullable<IOptions['auth']>;
  credentials?: EtcdCredentials;
}

/** The variables the loader reads, by the setting each carries. */
export const ETCD_ENV_VARIABLES = {
  endpoints: 'ETCD_ENDPOINTS',
  caFile: 'ETCD_CA_FILE',
  certFile: 'ETCD_CERT_FILE',
  keyFile: 'ETCD_KEY_FILE',
  username: 'ETCD_USERNAME',
  password: 'ETCD_PASSWORD',
  prefix: 'ETCD_PREFIX',
  eventPrefix: 'ETCD_EVENT_PREFIX',
} as const;

export type EtcdSetting = keyof typeof ETCD_ENV_VARIABLES;

/**
 * Where the settings come from: `read` gives a setting's value (undefined: unset), `nameOf` what an error calls
 * it. The environment is one source; the CLI is another, whose flags stand in for the variables they override.
 */
export interface EtcdSettingSource {
  read(setting: EtcdSetting): string | undefined;
  nameOf(setting: EtcdSetting): string;
}

/** The environment as a source: an empty variable counts as unset; errors name the variable. */
export function environmentSource(env: NodeJS.ProcessEnv): EtcdSettingSource {
  return {
    read: (setting) => {
      const value = env[ETCD_ENV_VARIABLES[setting]];
      return value === undefined || value === '' ? undefined : value;
    },
    nameOf: (setting) => ETCD_ENV_VARIABLES[setting],
  };
}

/**
 * Reads etcd connection settings from environment variables (an empty variable counts as unset):
 *
 * | variable | meaning |
 * |---|---|
 * | `ETCD_ENDPOINTS` | required; comma-separated, e.g. `https://etcd-0:2379,https://etcd-1:2379` |
 * | `ETCD_CA_FILE` | PEM CA of the etcd server certificates |
 * | `ETCD_CERT_FILE`, `ETCD_KEY_FILE` | PEM client certificate and its unencrypted key (both or neither) |
 * | `ETCD_USERNAME`, `ETCD_PASSWORD` | etcd user and password (both or neither) |
 * | `ETCD_PREFIX` | lease key prefix; default the provider's `mastra/lease/` |
 * | `ETCD_EVENT_PREFIX` | `EtcdPubSub`'s event key prefix; default beside the lease prefix (`mastra/events/`) |
 *
 * Files are read and checked now. Every error is a `LeaseArgumentTypeError` whose message starts with the
 * variable's name, and never contains the password or a file's contents; the returned `auth` and
 * `credentials` redact themselves under `util.inspect` and `JSON.stringify`.
 */
export function loadEtcdOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EtcdEnvOptions {
  return loadEtcdOptions(environmentSource(env));
}

/**
 * The one loader behind `loadEtcdOptionsFromEnv` and the `etcd-lease` CLI's connection settings: the same
 * variables, checks and error messages for the library, the CLI and the example app.
 */
export function loadEtcdOptions(source: EtcdSettingSource): EtcdEnvOptions {
  const { read, nameOf } = source;
  const endpoints = read('endpoints');
  if (endpoints === undefined) {
    throw new LeaseArgumentTypeError(nameOf('endpoints'), 'is not set; give comma-separated endpoints, e.g. https://etcd-0:2379,https://etcd-1:2379');
  }
  const hosts = endpoints.split(',').map((h) => h.trim());
  for (const host of hosts) {
    if (parseEndpoint(host) === undefined) {
      throw new LeaseArgumentTypeError(nameOf('endpoints'), `${JSON.stringify(host)} is not host:port, http://host:port or https://host:port`);
    }
  }
  const schemes = new Set(hosts.map((h) => (h.startsWith('https://') ? 'https' : h.startsWith('http://') ? 'http' : 'none')));
  if (schemes.has('https') && schemes.has('http')) {
    throw new LeaseArgumentTypeError(nameOf('endpoints'), 'mixes http:// and https:// endpoints; etcd3 uses one setting for all');
  }

  const tlsFiles = ['caFile', 'certFile', 'keyFile'] as const;
  const credentials = readTlsFiles(
    { ca: nameOf('caFile'), cert: nameOf('certFile'), key: nameOf('keyFile') },
    { ca: read('caFile'), cert: read('certFile'), key: read('keyFile') },
  );
  if (credentials !== undefined && schemes.has('http')) {
    const given = tlsFiles.filter((setting) => read(setting) !== undefined).map(nameOf).join(', ');
    throw new LeaseArgumentTypeError(nameOf('endpoints'), `uses http:// but ${given} ask for TLS; use https:// endpoints`);
  }

  const username = read('username');
  const password = read('password');
  if (username === undefined && password !== undefined) {
    throw new LeaseArgumentTypeError(nameOf('username'), `is not set but ${nameOf('password')} is; give both or neither`);
  }
  if (username !== undefined && password === undefined) {
    throw new LeaseArgumentTypeError(
      nameOf('password'),
      `is not set but ${nameOf('username')} is; give both or neither (a user authenticated by its certificate CN needs neither)`,
    );
  }

  const prefix = read('prefix');
  if (prefix !== undefined) checkText(nameOf('prefix'), prefix);
  // Whether it overlaps the lease prefix is EtcdPubSub's check, made with the defaults it applies.
  const eventPrefix = read('eventPrefix');
  if (eventPrefix !== undefined) checkText(nameOf('eventPrefix'), eventPrefix);

  const options: EtcdEnvOptions = { hosts };
  if (prefix !== undefined) options.prefix = prefix;
  if (eventPrefix !== undefined) options.eventPrefix = eventPrefix;
  if (username !== undefined && password !== undefined) options.auth = redactAuth({ username, password });
  if (credentials !== undefined) options.credentials = credentials;
  return options;
}
