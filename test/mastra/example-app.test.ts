/**
 * The example app (examples/mastra-app) against a real etcd cluster: it must start from its
 * environment, wake a thread over HTTP with its lease in etcd, and answer its readiness probe.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readConfig } from '../../examples/mastra-app/src/config.js';
import { createApp } from '../../examples/mastra-app/src/server.js';
import { LeaseArgumentTypeError, loadEtcdOptionsFromEnv } from '../../src/index.js';
import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import { EtcdLeaseProvider } from '../../src/provider.js';
import { startCluster } from '../harness/cluster.js';
import type { TestCluster } from '../harness/cluster.js';
import { createTestPki } from '../harness/test-pki.js';
import { waitFor } from '../support/wait.js';

let cluster: TestCluster;
let app: ReturnType<typeof createApp>;
let base: string;
const prefix = `example-app/${process.pid}/`;

beforeAll(async () => {
  cluster = await startCluster();
  const config = readConfig({
    ETCD_ENDPOINTS: cluster.endpoints().join(', '),
    ETCD_PREFIX: prefix,
    ETCD_EVENT_PREFIX: `example-app/${process.pid}-events/`,
    PORT: '0',
    ECHO_DELAY_MS: '3000',
  });
  app = createApp(config);
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  await cluster?.stop();
});

describe('examples/mastra-app', () => {
  it('is ready once etcd answers, with events and leases both on EtcdPubSub', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(app.pubsub).toBeInstanceOf(EtcdPubSub);
  });

  it('wakes a thread over HTTP, holds its lease in etcd while the run lasts, and delivers a second message to that run', async () => {
    const observer = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
    try {
      const res = await fetch(`${base}/threads/user-1/chat-1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(res.status).toBe(202);
      const body = (await res.json()) as { action: string; runId: string };
      expect(body.action).toBe('wake');
      // While the echo model thinks (ECHO_DELAY_MS), the run holds the thread: a second message is delivered to it,
      // as the README's two curl commands show.
      const again = await fetch(`${base}/threads/user-1/chat-1/messages`, { method: 'POST', body: JSON.stringify({ text: 'and this' }) });
      expect(await again.json()).toMatchObject({ action: 'deliver' });
      // Then the run finishes and releases its lease.
      await waitFor('the run to release its lease', async () => (await observer.getLeaseOwner('user-1\u0000chat-1')) === undefined, { timeoutMs: 20_000 });
    } finally {
      await observer.close();
    }
  });

  it('does not wake a thread that another instance holds in etcd', async () => {
    const observer = new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix });
    try {
      const key = 'user-2\u0000chat-2';
      expect(await observer.acquireLease(key, 'run-on-another-instance', 10_000)).toMatchObject({ acquired: true });
      const res = await fetch(`${base}/threads/user-2/chat-2/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(await res.json()).toEqual({ action: 'deliver', runId: 'run-on-another-instance' });
      await observer.releaseLease(key, 'run-on-another-instance');
    } finally {
      await observer.close();
    }
  });

  it('rejects a message without text', async () => {
    const res = await fetch(`${base}/threads/user-1/chat-1/messages`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(400);
  });

  it('reads its own settings from the environment', () => {
    expect(() => readConfig({ ETCD_ENDPOINTS: 'a:1', LEASE_ON_ETCD_ERROR: 'maybe' })).toThrow(/LEASE_ON_ETCD_ERROR/);
    expect(() => readConfig({ ETCD_ENDPOINTS: 'a:1', MASTRA_STREAM_PARTS: 'sometimes' })).toThrow(/MASTRA_STREAM_PARTS/);
    expect(readConfig({ ETCD_ENDPOINTS: 'a:1', MASTRA_STREAM_PARTS: 'write-behind' }).etcd.publishMode).toBeTypeOf('function');
  });

  it('reads endpoints, TLS, user and prefixes exactly as the library loader does, errors included', async () => {
    const pki = await createTestPki();
    try {
      const client = await pki.clientCert('mastra-app');
      const envs: Record<string, string>[] = [
        { ETCD_ENDPOINTS: 'https://etcd-0:2379, https://etcd-1:2379', ETCD_CA_FILE: pki.ca.cert, ETCD_CERT_FILE: client.cert, ETCD_KEY_FILE: client.key },
        // A client certificate without a CA file (the server's certificate is under a public root): kept.
        { ETCD_ENDPOINTS: 'https://etcd-0:2379', ETCD_CERT_FILE: client.cert, ETCD_KEY_FILE: client.key },
        { ETCD_ENDPOINTS: 'etcd-0:2379', ETCD_USERNAME: 'u', ETCD_PASSWORD: 'p', ETCD_PREFIX: 'apps/a/lease/', ETCD_EVENT_PREFIX: 'apps/a/events/' },
        { ETCD_ENDPOINTS: 'etcd-0:2379', ETCD_PREFIX: '', ETCD_CA_FILE: '' },
      ];
      for (const env of envs) expect(readConfig(env).etcd).toEqual(loadEtcdOptionsFromEnv(env));
      expect(readConfig(envs[1]!).etcd.credentials?.certChain?.equals(readFileSync(client.cert))).toBe(true);

      const wrong: Record<string, string>[] = [
        {},
        { ETCD_ENDPOINTS: 'https://etcd-0:2379', ETCD_USERNAME: 'mastra' },
        { ETCD_ENDPOINTS: 'https://etcd-0:2379', ETCD_CERT_FILE: client.cert },
        { ETCD_ENDPOINTS: 'http://etcd-0:2379', ETCD_CA_FILE: pki.ca.cert },
        { ETCD_ENDPOINTS: 'https://etcd-0:2379', ETCD_CA_FILE: join(pki.dir, 'missing.pem') },
      ];
      for (const env of wrong) {
        const expected = thrown(() => loadEtcdOptionsFromEnv(env));
        expect(expected).toBeInstanceOf(LeaseArgumentTypeError);
        expect(thrown(() => readConfig(env))).toEqual(expected);
      }
    } finally {
      await pki.remove();
    }
  });
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
