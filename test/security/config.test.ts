import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EtcdLeaseProvider,
  LeaseArgumentTypeError,
  loadEtcdCredentials,
  loadEtcdOptionsFromEnv,
} from '../../src/index.js';
import { EtcdPubSub } from '../../src/mastra/index.js';
import { createTestPki, type CertFiles, type TestPki } from '../harness/test-pki.js';
import { findLeaks, keyFingerprints } from './support/secrets.js';

// Loading connection settings from files and environment variables, and keeping secrets out of every
// rendering of the options and the provider. No cluster: nothing here connects.

let pki: TestPki;
let client: CertFiles;
let other: CertFiles;
let encryptedKey: string;
let secrets: string[];
const PASSWORD = 'pa55-Zebra-Quartz-91';

beforeAll(async () => {
  pki = await createTestPki();
  client = await pki.clientCert('app');
  other = await pki.clientCert('someone-else');
  encryptedKey = join(pki.dir, 'encrypted.key');
  await promisify(execFile)('openssl', ['pkcs8', '-topk8', '-in', client.key, '-out', encryptedKey, '-v2', 'aes-256-cbc', '-passout', 'pass:x']);
  secrets = [PASSWORD, ...keyFingerprints(readFileSync(client.key)), ...keyFingerprints(readFileSync(other.key))];
}, 60_000);
afterAll(async () => {
  await pki?.remove();
});

/** The error `load` throws, asserting it is the typed, named kind and leaks nothing. */
function failure(load: () => unknown): LeaseArgumentTypeError {
  let thrown: unknown;
  try {
    load();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(LeaseArgumentTypeError);
  expect((thrown as LeaseArgumentTypeError).code).toBe('ELEASE_INVALID_ARGUMENT');
  expect(findLeaks([thrown], secrets)).toEqual([]);
  return thrown as LeaseArgumentTypeError;
}

const fullEnv = () => ({
  ETCD_ENDPOINTS: 'https://127.0.0.1:2379, https://127.0.0.1:22379',
  ETCD_CA_FILE: pki.ca.cert,
  ETCD_CERT_FILE: client.cert,
  ETCD_KEY_FILE: client.key,
  ETCD_USERNAME: 'app',
  ETCD_PASSWORD: PASSWORD,
  ETCD_PREFIX: 'apps/a/',
});

describe('loadEtcdOptionsFromEnv', () => {
  it('reads endpoints, files, user and prefix into the provider options', () => {
    const options = loadEtcdOptionsFromEnv(fullEnv());
    expect(options.hosts).toEqual(['https://127.0.0.1:2379', 'https://127.0.0.1:22379']);
    expect(options.prefix).toBe('apps/a/');
    expect(options.auth).toMatchObject({ username: 'app', password: PASSWORD });
    expect(options.credentials?.rootCertificate.equals(readFileSync(pki.ca.cert))).toBe(true);
    expect(options.credentials?.certChain?.equals(readFileSync(client.cert))).toBe(true);
    expect(options.credentials?.privateKey?.equals(readFileSync(client.key))).toBe(true);
  });

  it('needs only ETCD_ENDPOINTS, and treats empty variables as unset', () => {
    const options = loadEtcdOptionsFromEnv({ ETCD_ENDPOINTS: '127.0.0.1:2379', ETCD_CA_FILE: '', ETCD_PASSWORD: '', ETCD_USERNAME: '' });
    expect(options).toEqual({ hosts: ['127.0.0.1:2379'] });
  });

  it.each([
    ['missing', {}, /^ETCD_ENDPOINTS: is not set/],
    ['empty', { ETCD_ENDPOINTS: '' }, /^ETCD_ENDPOINTS: is not set/],
    ['not an endpoint', { ETCD_ENDPOINTS: 'https://a:1,,b:2' }, /^ETCD_ENDPOINTS: "" is not host:port/],
    ['a bad port', { ETCD_ENDPOINTS: 'etcd:99999' }, /^ETCD_ENDPOINTS: "etcd:99999"/],
    ['mixed schemes', { ETCD_ENDPOINTS: 'https://a:1,http://b:2' }, /^ETCD_ENDPOINTS: mixes http:\/\/ and https:\/\//],
  ])('ETCD_ENDPOINTS %s is named in the error', (_, env, message) => {
    expect(failure(() => loadEtcdOptionsFromEnv(env)).message).toMatch(message);
  });

  it('TLS files with http:// endpoints are a contradiction, named', () => {
    const error = failure(() => loadEtcdOptionsFromEnv({ ETCD_ENDPOINTS: 'http://a:1', ETCD_CA_FILE: pki.ca.cert }));
    expect(error.message).toMatch(/^ETCD_ENDPOINTS: uses http:\/\/ but ETCD_CA_FILE ask for TLS/);
  });

  it('an unreadable file names the variable and the path, not a stack of fs internals', () => {
    const error = failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_CA_FILE: '/nonexistent/ca.pem' }));
    expect(error.message).toBe('ETCD_CA_FILE: cannot read "/nonexistent/ca.pem" (ENOENT)');
    expect(error.parameter).toBe('ETCD_CA_FILE');
  });

  it('a file of the wrong kind is named, without its contents', () => {
    expect(failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_CA_FILE: client.key })).message).toMatch(
      /^ETCD_CA_FILE: is not a PEM certificate/,
    );
    expect(failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_KEY_FILE: client.cert })).message).toMatch(
      /^ETCD_KEY_FILE: is not a PEM private key/,
    );
  });

  it('a key that does not belong to the certificate is named, without either key in the message', () => {
    const error = failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_KEY_FILE: other.key }));
    expect(error.message).toBe('ETCD_KEY_FILE: is not the private key of the certificate in ETCD_CERT_FILE');
  });

  it('an encrypted key is refused with a reason', () => {
    expect(failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_KEY_FILE: encryptedKey })).message).toMatch(
      /^ETCD_KEY_FILE: is encrypted/,
    );
  });

  it('certificate and key, user and password, each go together', () => {
    const { ETCD_KEY_FILE: _k, ...noKey } = fullEnv();
    expect(failure(() => loadEtcdOptionsFromEnv(noKey)).message).toMatch(/^ETCD_KEY_FILE: must be given together with ETCD_CERT_FILE/);
    const { ETCD_CERT_FILE: _c, ...noCert } = fullEnv();
    expect(failure(() => loadEtcdOptionsFromEnv(noCert)).message).toMatch(/^ETCD_CERT_FILE: must be given together with ETCD_KEY_FILE/);
    const { ETCD_PASSWORD: _p, ...noPassword } = fullEnv();
    expect(failure(() => loadEtcdOptionsFromEnv(noPassword)).message).toMatch(/^ETCD_PASSWORD: is not set but ETCD_USERNAME is/);
    const { ETCD_USERNAME: _u, ...noUser } = fullEnv();
    expect(failure(() => loadEtcdOptionsFromEnv(noUser)).message).toMatch(/^ETCD_USERNAME: is not set but ETCD_PASSWORD is/);
  });

  it("reads EtcdPubSub's event prefix from ETCD_EVENT_PREFIX, and only when set", () => {
    expect(loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_EVENT_PREFIX: 'apps/a-events/' }).eventPrefix).toBe('apps/a-events/');
    expect(loadEtcdOptionsFromEnv({ ETCD_ENDPOINTS: '127.0.0.1:2379', ETCD_EVENT_PREFIX: '' })).toEqual({ hosts: ['127.0.0.1:2379'] });
    expect(failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_EVENT_PREFIX: 'e\uDC00/' })).message).toMatch(
      /^ETCD_EVENT_PREFIX: contains a lone UTF-16 surrogate/,
    );
  });

  it('spreads into EtcdLeaseProvider and EtcdPubSub alike: the pubsub takes the event prefix, the provider has none to take', async () => {
    const env = { ETCD_ENDPOINTS: '127.0.0.1:1', ETCD_PREFIX: 'apps/a/lease/', ETCD_EVENT_PREFIX: 'apps/a/events/' };
    const provider = new EtcdLeaseProvider({ ...loadEtcdOptionsFromEnv(env), deadlineMs: 1000 });
    const pubsub = new EtcdPubSub(loadEtcdOptionsFromEnv(env));
    try {
      expect(provider.toJSON()).toMatchObject({ prefix: 'apps/a/lease/' });
      expect(pubsub.toJSON()).toMatchObject({ prefix: 'apps/a/lease/', eventPrefix: 'apps/a/events/' });
    } finally {
      await Promise.all([provider.close(), pubsub.close()]);
    }
  });

  it('a prefix that cannot round-trip through UTF-8 is refused', () => {
    expect(failure(() => loadEtcdOptionsFromEnv({ ...fullEnv(), ETCD_PREFIX: 'a\uD800/' })).message).toMatch(
      /^ETCD_PREFIX: contains a lone UTF-16 surrogate/,
    );
  });

  it('the loaded options show no password and no key under util.inspect or JSON.stringify', () => {
    const options = loadEtcdOptionsFromEnv(fullEnv());
    expect(findLeaks([options, options.auth, options.credentials], secrets)).toEqual([]);
    expect(inspect(options)).toContain("username: 'app'");
    expect(JSON.stringify(options.auth)).toBe('{"username":"app","password":"[redacted]"}');
    expect(JSON.stringify(options.credentials)).toMatch(/"privateKey":"\[redacted\]"/);
  });
});

describe('loadEtcdCredentials', () => {
  it('reads PEM files into etcd3 credentials and names the field on errors', () => {
    const credentials = loadEtcdCredentials({ caFile: pki.ca.cert, certFile: client.cert, keyFile: client.key });
    expect(credentials?.privateKey?.equals(readFileSync(client.key))).toBe(true);
    expect(loadEtcdCredentials({})).toBeUndefined();
    expect(failure(() => loadEtcdCredentials({ caFile: pki.ca.cert, certFile: client.cert })).message).toMatch(/^keyFile: /);
    expect(failure(() => loadEtcdCredentials({ caFile: join(pki.dir, 'nope') })).message).toMatch(/^caFile: cannot read/);
  });
});

describe('the provider keeps secrets out of its renderings', () => {
  it('util.inspect and JSON.stringify of a provider show settings, a redacted password and no key', async () => {
    const auth = { username: 'app', password: PASSWORD };
    const credentials = {
      rootCertificate: readFileSync(pki.ca.cert),
      certChain: readFileSync(client.cert),
      privateKey: readFileSync(client.key),
    };
    const options = { hosts: ['https://127.0.0.1:1'], prefix: 'apps/a/', auth, credentials };
    const provider = new EtcdLeaseProvider(options);
    try {
      // Everything a careless log line could include: the provider, the options it was given, both.
      expect(findLeaks([provider, options, { provider, options }], secrets)).toEqual([]);
      expect(inspect(provider)).toMatch(/^EtcdLeaseProvider \{/);
      expect(provider.toJSON()).toMatchObject({
        hosts: ['https://127.0.0.1:1'],
        prefix: 'apps/a/',
        auth: { username: 'app', password: '[redacted]' },
        credentials: { privateKey: '[redacted]' },
        closed: false,
      });
      // The fields themselves are untouched: etcd3 and gRPC still read them.
      expect(auth.password).toBe(PASSWORD);
      expect(Object.keys(credentials)).toEqual(['rootCertificate', 'certChain', 'privateKey']);
    } finally {
      await provider.close();
    }
  });

  it('malformed credentials fail at construction, naming the option and not showing the key', () => {
    const base = { hosts: ['https://127.0.0.1:1'] };
    const key = readFileSync(client.key);
    const cases: Array<[object, RegExp]> = [
      [{ rootCertificate: 'not a buffer' }, /^options\.credentials\.rootCertificate: must be a Buffer/],
      [{ rootCertificate: readFileSync(pki.ca.cert), privateKey: key }, /^options\.credentials\.certChain: must be given together/],
      [
        { rootCertificate: readFileSync(pki.ca.cert), certChain: readFileSync(other.cert), privateKey: key },
        /^options\.credentials\.privateKey: is not the private key of the certificate in options\.credentials\.certChain/,
      ],
    ];
    for (const [credentials, message] of cases) {
      const error = failure(() => new EtcdLeaseProvider({ ...base, credentials: credentials as never }));
      expect(error.message).toMatch(message);
    }
  });

  it('a key file the caller writes badly never comes back in an error', () => {
    const broken = join(pki.dir, 'broken.key');
    const body = readFileSync(client.key, 'utf8').replace('PRIVATE KEY-----\n', 'PRIVATE KEY-----\n!!');
    writeFileSync(broken, body);
    const error = failure(() => loadEtcdCredentials({ certFile: client.cert, keyFile: broken }));
    expect(error.message).toMatch(/^keyFile: is not a PEM private key/);
  });
});
