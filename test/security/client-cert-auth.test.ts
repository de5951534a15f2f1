import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  EtcdAuthenticationError,
  EtcdLeaseProvider,
  EtcdPermissionError,
  EtcdTlsError,
  loadEtcdOptionsFromEnv,
  type LeaseEvent,
  type LeaseLogger,
} from '../../src/index.js';
import type { CertFiles } from '../harness/test-pki.js';
import { leastPrivilegeSetup } from './support/etcdctl.js';
import { findLeaks, keyFingerprints, timed } from './support/secrets.js';
import { useSecureCluster } from './support/secure-cluster.js';

// A locked-down cluster: TLS with --client-cert-auth and etcd auth on, set up with the README's
// least-privilege etcdctl commands — a role with readwrite on `mastra/lease/` only, held by a user
// authenticated by its certificate's CN and by a user with a password.
const etcd = useSecureCluster({ tls: true, clientCertAuth: true });
const PREFIX = 'mastra/lease/';
const PASSWORD = 'Tz9-app-secret-kiwi';
const DEADLINE_MS = 30_000;
const FAST_MS = 3_000;

let cnCert: CertFiles; // CN=lease-app-cn: the user, by certificate
let anonymousCert: CertFiles; // CN=nobody: no such user; passes TLS, carries no rights
let rogueCert: CertFiles; // CN=lease-app-cn, but signed by a CA etcd does not trust

beforeAll(async () => {
  const root = await etcd.pki.clientCert('root');
  cnCert = await etcd.pki.clientCert('lease-app-cn');
  anonymousCert = await etcd.pki.clientCert('nobody');
  rogueCert = await etcd.pki.clientCert('lease-app-cn', 'untrustedCa');
  await leastPrivilegeSetup(
    { endpoints: etcd.cluster.endpoints(), tls: { ca: etcd.pki.ca.cert, cert: root.cert, key: root.key } },
    {
      role: 'mastra-leases',
      prefix: PREFIX,
      users: [{ name: 'lease-app-cn' }, { name: 'lease-app', password: PASSWORD }],
    },
  );
}, 60_000);

/** Logger and event listener that keep everything they are given, to scan for secrets. */
function recorder() {
  const lines: unknown[] = [];
  const logger: LeaseLogger = {
    debug: (message, fields) => lines.push({ message, fields }),
    warn: (message, fields) => lines.push({ message, fields }),
  };
  return { lines, logger, onEvent: (event: LeaseEvent) => lines.push(event) };
}

async function allOperations(p: EtcdLeaseProvider): Promise<void> {
  expect(await p.acquireLease('thread\u0000one', 'run-a', 5000)).toMatchObject({ acquired: true, owner: 'run-a' });
  expect(await p.acquireLease('thread\u0000one', 'run-b', 5000)).toEqual({ acquired: false, owner: 'run-a' });
  expect(await p.renewLease('thread\u0000one', 'run-a', 5000)).toBe(true);
  expect(await p.transferLease('thread\u0000one', 'run-a', 'run-b', 5000)).toBe(true);
  expect(await p.getLease('thread\u0000one')).toMatchObject({ owner: 'run-b' });
  await p.releaseLease('thread\u0000one', 'run-b');
  expect(await p.getLeaseOwner('thread\u0000one')).toBeUndefined();
  // A waiter watches the key: watches need the same read permission on the prefix.
  await p.acquireLease('watched', 'run-a', 5000);
  const waiting = p.waitForLease('watched', 'run-b', 5000, { timeoutMs: 10_000 });
  await p.releaseLease('watched', 'run-a');
  expect(await waiting).toMatchObject({ owner: 'run-b' });
  await p.releaseLease('watched', 'run-b');
}

describe('least privilege: a role with readwrite on the lease prefix only', () => {
  it('a user authenticated by its certificate CN (no password) can do everything the provider does', async () => {
    await allOperations(etcd.provider({ prefix: PREFIX, credentials: etcd.credentials(cnCert) }));
  });

  it('a user with a password does the same (password identity wins over the certificate CN)', async () => {
    // The certificate names a user with no rights; only the password's user holds the role.
    await allOperations(
      etcd.provider({ prefix: PREFIX, credentials: etcd.credentials(anonymousCert), auth: { username: 'lease-app', password: PASSWORD } }),
    );
  });

  it('settings from the environment (ETCD_*) reach the locked-down cluster', async () => {
    const options = loadEtcdOptionsFromEnv({
      ETCD_ENDPOINTS: etcd.cluster.endpoints().join(','),
      ETCD_CA_FILE: etcd.pki.ca.cert,
      ETCD_CERT_FILE: cnCert.cert,
      ETCD_KEY_FILE: cnCert.key,
      ETCD_PREFIX: PREFIX,
    });
    const p = etcd.provider({ ...options, prefix: options.prefix! });
    expect(await p.acquireLease('from-env', 'A', 5000)).toMatchObject({ acquired: true });
    await p.releaseLease('from-env', 'A');
  });

  it('a prefix outside the role fails fast with EtcdPermissionError naming the prefix', async () => {
    const p = etcd.provider({ prefix: 'elsewhere/', credentials: etcd.credentials(cnCert), deadlineMs: DEADLINE_MS });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdPermissionError);
    expect((error as EtcdPermissionError).code).toBe('ELEASE_PERMISSION');
    expect((error as Error).message).toContain('"elsewhere/"');
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('a certificate whose CN is no etcd user gets no rights: EtcdPermissionError, fast', async () => {
    const p = etcd.provider({ prefix: PREFIX, credentials: etcd.credentials(anonymousCert), deadlineMs: DEADLINE_MS });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdPermissionError);
    expect(ms).toBeLessThan(FAST_MS);
  });
});

describe('misconfiguration fails fast with a typed error and is never retried', () => {
  it('a wrong password: EtcdAuthenticationError', async () => {
    const p = etcd.provider({
      prefix: PREFIX,
      credentials: etcd.credentials(cnCert),
      auth: { username: 'lease-app', password: 'not-the-password' },
      deadlineMs: DEADLINE_MS,
    });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdAuthenticationError);
    expect((error as Error).message).toMatch(/authentication failed — check the user name and password/);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('no client certificate: EtcdTlsError saying one is required, after a few connections', async () => {
    const { hosts, connections } = await etcd.countingEndpoints('https');
    const p = etcd.provider({ hosts, prefix: PREFIX, credentials: etcd.credentials(), deadlineMs: DEADLINE_MS });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdTlsError);
    expect((error as Error).message).toMatch(/requires a client certificate .*credentials\.certChain and credentials\.privateKey/);
    expect(ms).toBeLessThan(FAST_MS);
    expect(connections()).toBeLessThanOrEqual(12);
  });

  it('a client certificate from a CA etcd does not trust: EtcdTlsError saying it was refused', async () => {
    const p = etcd.provider({ prefix: PREFIX, credentials: etcd.credentials(rogueCert), deadlineMs: DEADLINE_MS });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdTlsError);
    expect((error as Error).message).toMatch(/refused the client certificate/);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('an untrusted server CA (with a good client certificate): EtcdTlsError', async () => {
    const p = etcd.provider({
      prefix: PREFIX,
      credentials: etcd.credentials(cnCert, etcd.pki.untrustedCa.cert),
      deadlineMs: DEADLINE_MS,
    });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdTlsError);
    expect((error as Error).message).toMatch(/is not trusted/);
    expect(ms).toBeLessThan(FAST_MS);
  });
});

describe('secrets stay secret', () => {
  it('no password or private key in errors, stacks, causes, logs, events or renderings of the provider', async () => {
    const secrets = [PASSWORD, 'not-the-password', ...keyFingerprints(readFileSync(cnCert.key)), ...keyFingerprints(readFileSync(rogueCert.key))];
    const { lines, logger, onEvent } = recorder();
    const seen: unknown[] = [];
    const attempt = async (options: ConstructorParameters<typeof EtcdLeaseProvider>[0]) => {
      const p = etcd.provider({ ...options, prefix: options.prefix ?? PREFIX, logger, onEvent, deadlineMs: DEADLINE_MS });
      seen.push(p, options);
      seen.push((await timed(() => p.acquireLease('secret-test', 'A', 5000))).error);
      seen.push((await timed(() => p.getLease('secret-test'))).error);
      await p.close();
      seen.push(p);
    };
    await attempt({ credentials: etcd.credentials(cnCert), auth: { username: 'lease-app', password: 'not-the-password' } });
    await attempt({ credentials: etcd.credentials(rogueCert) });
    await attempt({ credentials: etcd.credentials(cnCert), auth: { username: 'lease-app', password: PASSWORD } });
    await attempt({ credentials: etcd.credentials(cnCert), prefix: 'elsewhere/' });
    expect(seen.filter((v) => v instanceof Error).length).toBeGreaterThanOrEqual(6);
    expect(findLeaks([...seen, lines], secrets)).toEqual([]);
  });
});
