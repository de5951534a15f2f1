import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdLeaseProvider } from '../../src/index.js';
import { cleanEnv, runCli } from './support/cli-process.js';
import { TlsEtcd } from './support/tls-etcd.js';

// TLS with client certificates plus password authentication: every connection flag and its
// environment variable reaches etcd, both on the raw-client path (list/get) and the provider
// path (release --owner).
const PASSWORD = 'root-secret';
let etcd: TlsEtcd;
let provider: EtcdLeaseProvider;
const prefix = 'tls-test/';

beforeAll(async () => {
  etcd = await TlsEtcd.start();
  await etcd.enableAuth(PASSWORD);
  provider = new EtcdLeaseProvider({
    client: etcd.client({ username: 'root', password: PASSWORD }),
    prefix,
  });
});

afterAll(async () => {
  await provider?.close();
  await etcd?.stop();
});

const flags = (): string[] => ['--endpoints', etcd.endpoint, '--prefix', prefix, '--cacert', etcd.files.ca, '--cert', etcd.files.cert, '--key', etcd.files.key];

describe('TLS and authentication', () => {
  it('flags: list --json sees a lease through TLS with a client certificate and a password', async () => {
    await provider.acquireLease('t\u0000k', 'owner-1', 15_000);
    const result = await runCli(['list', '--json', ...flags(), '--user', 'root', '--password', PASSWORD]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ key: 't\u0000k', owner: 'owner-1' }]);
  });

  it('environment variables: get and release --owner work with ETCD_* alone', async () => {
    await provider.acquireLease('env-key', 'owner-2', 15_000);
    const env = cleanEnv({
      ETCD_ENDPOINTS: etcd.endpoint,
      ETCD_CA_FILE: etcd.files.ca,
      ETCD_CERT_FILE: etcd.files.cert,
      ETCD_KEY_FILE: etcd.files.key,
      ETCD_USERNAME: 'root',
      ETCD_PASSWORD: PASSWORD,
    });
    const got = await runCli(['get', 'env-key', '--json', '--prefix', prefix], env);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ owner: 'owner-2' });

    const released = await runCli(['release', 'env-key', '--owner', 'owner-2', '--prefix', prefix], env);
    expect(released.code, released.stderr).toBe(0);
    expect(await provider.getLeaseOwner('env-key')).toBeUndefined();
  });

  it('a wrong password fails with ELEASE_AUTH and exit 1', async () => {
    const result = await runCli(['list', ...flags(), '--user', 'root', '--password', 'wrong', '--timeout', '3000']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ELEASE_AUTH');
  });

  it('without the client certificate the server refuses the connection: exit 1', async () => {
    const result = await runCli(['list', '--endpoints', etcd.endpoint, '--cacert', etcd.files.ca, '--user', 'root', '--password', PASSWORD, '--timeout', '1500']);
    expect(result.code).toBe(1);
  });
});
