import { describe, expect, it } from 'vitest';
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

  it('reads the ETCD_* environment, and flags win over it', () => {
    const env = { ETCD_ENDPOINTS: 'a:1, b:2', ETCD_USERNAME: 'u', ETCD_PASSWORD: 'p', ETCD_CA_FILE: '/ca.pem' };
    expect(resolveConnection({}, env)).toMatchObject({ hosts: ['a:1', 'b:2'], username: 'u', password: 'p', caFile: '/ca.pem', explicitEndpoints: true });
    expect(resolveConnection({ endpoints: 'c:3', user: 'v', password: 'q' }, env)).toMatchObject({ hosts: ['c:3'], username: 'v', password: 'q' });
  });

  it('an empty environment variable counts as unset', () => {
    expect(resolveConnection({}, { ETCD_ENDPOINTS: '' }).explicitEndpoints).toBe(false);
  });

  it.each([
    [{ user: 'u' }, /--user and --password/],
    [{ cert: '/c.pem' }, /--cert and --key/],
    [{ timeout: '0' }, /--timeout/],
    [{ endpoints: ' , ' }, /--endpoints/],
    [{ prefix: '' }, /--prefix/],
  ])('%o is a usage error', (values, message) => {
    expect(() => resolveConnection(values, {})).toThrow(UsageError);
    expect(() => resolveConnection(values, {})).toThrow(message);
  });

  it('an unreadable certificate file is a usage error naming the flag', () => {
    const settings = resolveConnection({ cacert: '/nonexistent/ca.pem' }, {});
    expect(() => clientOptions(settings)).toThrow(/--cacert: cannot read \/nonexistent\/ca.pem/);
  });
});
