import { Etcd3 } from 'etcd3';
import { beforeAll, describe, expect, it } from 'vitest';
import { EtcdAuthenticationError, EtcdTlsError } from '../../src/index.js';
import { POLICY } from '../../src/policy.js';
import { createTestPki } from '../harness/test-pki.js';
import { elapse } from '../support/wait.js';
import { leastPrivilegeSetup } from './support/etcdctl.js';
import { timed } from './support/secrets.js';
import { useSecureCluster } from './support/secure-cluster.js';

// Auth tokens expire: members hand out simple tokens that die after 2 s without use
// (--auth-token-ttl=2). A provider idle for longer must keep working — etcd3 answers "invalid auth
// token" by authenticating again, underneath CallRunner. Waiters keep working too, though a watch
// added to a stream opened with the expired token is refused (see the last test of the first block).
const TOKEN_TTL_S = 2;
const etcd = useSecureCluster({ tls: false, extraArgs: [`--auth-token-ttl=${TOKEN_TTL_S}`] });
const PREFIX = 'mastra/lease/';
const PASSWORD = 'ttl-test-secret';
const auth = () => ({ username: 'lease-app', password: PASSWORD });
/** Past the TTL, plus the member's once-a-second sweep of expired tokens. */
const IDLE_MS = TOKEN_TTL_S * 1000 + 2500;

beforeAll(async () => {
  await leastPrivilegeSetup(
    { endpoints: etcd.cluster.endpoints() },
    { rootPassword: 'root-secret', role: 'mastra-leases', prefix: PREFIX, users: [{ name: 'lease-app', password: PASSWORD }] },
  );
}, 60_000);

describe('auth tokens that expire', () => {
  it('the premise: after idling past the TTL an etcd3 client must authenticate again', async () => {
    let exchanges = 0;
    const client = new Etcd3({
      hosts: etcd.cluster.endpoints(),
      auth: { ...auth(), callOptions: () => (exchanges++, {}) },
    });
    etcd.onClose(() => client.close());
    await client.put(`${PREFIX}premise`).value('1');
    expect(exchanges).toBe(1);
    await elapse(IDLE_MS);
    await client.put(`${PREFIX}premise`).value('2');
    // The first token was refused as expired, so the client authenticated again. Sometimes once more: each member
    // learns a new simple token when it applies the Authenticate entry, so a retry that reaches a follower which
    // has not applied it yet is refused too.
    expect(exchanges).toBeGreaterThanOrEqual(2);
  });

  it('every operation keeps working after the token expired', { timeout: 60_000 }, async () => {
    const p = etcd.provider({ prefix: PREFIX, auth: auth() });
    expect(await p.acquireLease('k', 'A', 30_000)).toMatchObject({ acquired: true });
    await elapse(IDLE_MS);
    expect(await p.renewLease('k', 'A', 30_000)).toBe(true);
    await elapse(IDLE_MS);
    expect(await p.getLease('k')).toMatchObject({ owner: 'A' });
    await elapse(IDLE_MS);
    expect(await p.transferLease('k', 'A', 'B', 30_000)).toBe(true);
    await p.releaseLease('k', 'B');
    expect(await p.getLeaseOwner('k')).toBeUndefined();
  });

  it('many concurrent calls on an expired token all succeed', async () => {
    const p = etcd.provider({ prefix: PREFIX, auth: auth() });
    await p.acquireLease('warm', 'A', 30_000);
    await elapse(IDLE_MS);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => p.acquireLease(`burst-${i}`, 'A', 30_000)));
    expect(results.every((r) => r.acquired)).toBe(true);
  });

  it('a waiter whose watch joins a watch stream opened before the token expired still gets the lease', { timeout: 60_000 }, async () => {
    const p = etcd.provider({ prefix: PREFIX, auth: auth() });
    const holder = etcd.provider({ prefix: PREFIX, auth: auth() });
    await holder.acquireLease('first', 'A', 30_000);
    await holder.acquireLease('second', 'A', 30_000);
    // Opens the client's watch stream with the token of the time…
    const first = p.waitForLease('first', 'B', 30_000, { timeoutMs: 40_000 });
    await elapse(IDLE_MS);
    // …and this watch is added to that stream after the token expired. etcd refuses it ("invalid auth
    // token": a stream keeps the token it was opened with, and etcd3 does not reopen the stream), so
    // what wakes this waiter is its safety-net re-check, at most POLICY.waiting.recheckMaxMs (+20 % jitter) later.
    const second = p.waitForLease('second', 'B', 30_000, { timeoutMs: 15_000 });
    await elapse(500);
    const releasedAt = performance.now();
    await holder.releaseLease('second', 'A');
    expect(await second).toMatchObject({ owner: 'B' });
    expect(performance.now() - releasedAt).toBeLessThan(POLICY.waiting.recheckMaxMs * 1.2 + 1000);
    await holder.releaseLease('first', 'A');
    expect(await first).toMatchObject({ owner: 'B' });
  });
});

describe('misconfiguration against a plaintext cluster with auth on', () => {
  it('no credentials at all: EtcdAuthenticationError, fast', async () => {
    const p = etcd.provider({ prefix: PREFIX, deadlineMs: 30_000 });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdAuthenticationError);
    expect(ms).toBeLessThan(3000);
  });

  it('a TLS client against plaintext endpoints: EtcdTlsError, fast', async () => {
    const pki = await createTestPki();
    etcd.onClose(() => pki.remove());
    const { readFileSync } = await import('node:fs');
    const p = etcd.provider({
      prefix: PREFIX,
      hosts: etcd.cluster.endpoints().map((e) => e.replace('http://', 'https://')),
      credentials: { rootCertificate: readFileSync(pki.ca.cert) },
      auth: auth(),
      deadlineMs: 30_000,
    });
    const { error, ms } = await timed(() => p.acquireLease('k', 'A', 5000));
    expect(error).toBeInstanceOf(EtcdTlsError);
    expect((error as Error).message).toMatch(/serves plaintext but the client uses TLS/);
    expect(ms).toBeLessThan(3000);
  });
});
