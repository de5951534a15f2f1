import { describe, expect, it } from 'vitest';
import { LeaseArgumentTypeError } from '../src/errors/invalid-argument.js';
import { createTestPki } from '../test/harness/test-pki.js';
import { clientOptions, resolveConnection } from './connection.js';
import { UsageError } from './usage-error.js';

describe('resolveConnection', () => {
  it('defaults to 127.0.0.1:2379 and the provider prefix', () => {
    expect(resolveConnection({}, {})).toMatchObject({
      hosts: ['127.0.0.1:2379'],
      prefix: 'mastra/lease/',
      timeoutMs: 5000,
      explicitEndpoints: false,
    });
  });

  it('reads the ETCD_* environment, and flags win over it', async () => {
    const pki = await createTestPki();
    try {
      const client = await pki.clientCert('app');
      const env = { ETCD_ENDPOINTS: 'a:1, b:2', ETCD_USERNAME: 'u', ETCD_PASSWORD: 'p', ETCD_CA_FILE: pki.ca.cert, ETCD_CERT_FILE: client.cert, ETCD_KEY_FILE: client.key };
      expect(resolveConnection({}, env)).toMatchObject({ hosts: ['a:1', 'b:2'], username: 'u', password: 'p', caFile: pki.ca.cert, certFile: client.cert, explicitEndpoints: true });
      expect(resolveConnection({ endpoints: 'c:3', user: 'v', password: 'q', cacert: pki.server.cert }, env)).toMatchObject({ hosts: ['c:3'], username: 'v', password: 'q', caFile: pki.server.cert });
      // A client certificate without its key, wherever each came from, names both.
      expect(() => resolveConnection({ cert: client.cert }, { ETCD_ENDPOINTS: 'a:1' })).toThrow(/^--key \(ETCD_KEY_FILE\): must be given together with --cert/);
      expect(() => resolveConnection({ key: client.key }, { ETCD_ENDPOINTS: 'a:1', ETCD_CERT_FILE: pki.server.cert })).toThrow(/^--key: is not the private key of the certificate in ETCD_CERT_FILE/);
    } finally {
      await pki.remove();
    }
  });

  it('an empty environment variable counts as unset', () => {
    expect(resolveConnection({}, { ETCD_ENDPOINTS: '' }).explicitEndpoints).toBe(false);
  });

  it.each([
    [{ timeout: '0' }, /--timeout/],
    [{ endpoints: ' , ' }, /--endpoints/],
    [{ prefix: '' }, /--prefix/],
  ])('%o is a usage error', (values, message) => {
    expect(() => resolveConnection(values, {})).toThrow(UsageError);
    expect(() => resolveConnection(values, {})).toThrow(message);
  });

  it('an unreadable certificate file is an invalid argument naming the flag, or the variable that gave it', () => {
    expect(() => resolveConnection({ cacert: '/nonexistent/ca.pem' }, {})).toThrow(/^--cacert: cannot read "\/nonexistent\/ca.pem" \(ENOENT\)$/);
    expect(() => resolveConnection({}, { ETCD_CA_FILE: '/nonexistent/ca.pem' })).toThrow(/^ETCD_CA_FILE: cannot read/);
    expect(() => resolveConnection({}, { ETCD_CA_FILE: '/nonexistent/ca.pem' })).toThrow(LeaseArgumentTypeError);
  });

  it('reads the lease prefix from ETCD_PREFIX, as the library does; --prefix wins', () => {
    expect(resolveConnection({}, { ETCD_PREFIX: 'apps/a/' }).prefix).toBe('apps/a/');
    expect(resolveConnection({ prefix: 'apps/b/' }, { ETCD_PREFIX: 'apps/a/' }).prefix).toBe('apps/b/');
    expect(resolveConnection({}, { ETCD_PREFIX: '' }).prefix).toBe('mastra/lease/');
  });

  it('checks the settings with the library loader, naming the flag or variable that was given', () => {
    expect(() => resolveConnection({ endpoints: 'https://a:1,http://b:2' }, {})).toThrow(/^--endpoints: mixes http:\/\/ and https:\/\//);
    expect(() => resolveConnection({}, { ETCD_ENDPOINTS: 'a:99999' })).toThrow(/^ETCD_ENDPOINTS: "a:99999"/);
    expect(() => resolveConnection({ user: 'u' }, {})).toThrow(/^--password \(ETCD_PASSWORD\): is not set but --user is/);
    expect(() => resolveConnection({}, { ETCD_PASSWORD: 'p' })).toThrow(/^--user \(ETCD_USERNAME\): is not set but ETCD_PASSWORD is/);
  });
});
