import type { IOptions } from 'etcd3';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { checkText } from '../keys/key-codec.js';
import { parseEndpoint } from './endpoint.js';
import { readTlsFiles, type EtcdCredentials } from './load-credentials.js';
import { redactAuth } from './redact.js';

/** Connection options read from the environment: spread them into `new EtcdLeaseProvider({ ... })`. */
export interface EtcdEnvOptions {
  hosts: string[];
  prefix?: string;
  auth?: NonNullable<IOptions['auth']>;
  credentials?: EtcdCredentials;
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
 *
 * Files are read and checked now. Every error is a `LeaseArgumentTypeError` whose message starts with the
 * variable's name, and never contains the password or a file's contents; the returned `auth` and
 * `credentials` redact themselves under `util.inspect` and `JSON.stringify`.
 */
export function loadEtcdOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EtcdEnvOptions {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };

  const endpoints = read('ETCD_ENDPOINTS');
  if (endpoints === undefined) {
    throw new LeaseArgumentTypeError('ETCD_ENDPOINTS', 'is not set; give comma-separated endpoints, e.g. https://etcd-0:2379,https://etcd-1:2379');
  }
  const hosts = endpoints.split(',').map((h) => h.trim());
  for (const host of hosts) {
    if (parseEndpoint(host) === undefined) {
      throw new LeaseArgumentTypeError('ETCD_ENDPOINTS', `${JSON.stringify(host)} is not host:port, http://host:port or https://host:port`);
    }
  }
  const schemes = new Set(hosts.map((h) => (h.startsWith('https://') ? 'https' : h.startsWith('http://') ? 'http' : 'none')));
  if (schemes.has('https') && schemes.has('http')) {
    throw new LeaseArgumentTypeError('ETCD_ENDPOINTS', 'mixes http:// and https:// endpoints; etcd3 uses one setting for all');
  }

  const credentials = readTlsFiles(
    { ca: 'ETCD_CA_FILE', cert: 'ETCD_CERT_FILE', key: 'ETCD_KEY_FILE' },
    { ca: read('ETCD_CA_FILE'), cert: read('ETCD_CERT_FILE'), key: read('ETCD_KEY_FILE') },
  );
  if (credentials !== undefined && schemes.has('http')) {
    const given = ['ETCD_CA_FILE', 'ETCD_CERT_FILE', 'ETCD_KEY_FILE'].filter((name) => read(name) !== undefined).join(', ');
    throw new LeaseArgumentTypeError('ETCD_ENDPOINTS', `uses http:// but ${given} ask for TLS; use https:// endpoints`);
  }

  const username = read('ETCD_USERNAME');
  const password = read('ETCD_PASSWORD');
  if (username === undefined && password !== undefined) {
    throw new LeaseArgumentTypeError('ETCD_USERNAME', 'is not set but ETCD_PASSWORD is; give both or neither');
  }
  if (username !== undefined && password === undefined) {
    throw new LeaseArgumentTypeError('ETCD_PASSWORD', 'is not set but ETCD_USERNAME is; give both or neither (a user authenticated by its certificate CN needs neither)');
  }

  const prefix = read('ETCD_PREFIX');
  if (prefix !== undefined) checkText('ETCD_PREFIX', prefix);

  const options: EtcdEnvOptions = { hosts };
  if (prefix !== undefined) options.prefix = prefix;
  if (username !== undefined && password !== undefined) options.auth = redactAuth({ username, password });
  if (credentials !== undefined) options.credentials = credentials;
  return options;
}
