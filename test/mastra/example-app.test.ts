/**
 * The example app (examples/mastra-app) against a real etcd cluster: it must start from its
 * environment, wake a thread over HTTP with its lease in etcd, and answer its readiness probe.
 */
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readConfig } from '../../examples/mastra-app/src/config.js';
import { createApp } from '../../examples/mastra-app/src/server.js';
import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import { EtcdLeaseProvider } from '../../src/provider.js';
import { startCluster } from '../harness/cluster.js';
import type { TestCluster } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';

let cluster: TestCluster;
let app: ReturnType<typeof createApp>;
let base: string;
const prefix = `example-app/${process.pid}/`;

beforeAll(async () => {
  cluster = await startCluster();
  const config = readConfig({
    ETCD_ENDPOINTS: cluster.endpoints().join(', '),
    ETCD_LEASE_PREFIX: prefix,
    ETCD_EVENT_PREFIX: `example-app/${process.pid}-events/`,
    PORT: '0',
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

  it('wakes a thread over HTTP and holds its lease in etcd while the run lasts', async () => {
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
      // The echo run is short: by now or soon the run has finished and released its lease.
      await waitFor('the run to release its lease', async () => (await observer.getLeaseOwner('user-1\u0000chat-1')) === undefined, { timeoutMs: 10_000 });
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

  it('reads TLS and password settings from the environment', () => {
    expect(() => readConfig({ ETCD_ENDPOINTS: 'https://etcd-0:2379', ETCD_USERNAME: 'mastra' })).toThrow(/ETCD_PASSWORD/);
    expect(() => readConfig({})).toThrow(/ETCD_ENDPOINTS/);
    expect(() => readConfig({ ETCD_ENDPOINTS: 'a:1', LEASE_ON_ETCD_ERROR: 'maybe' })).toThrow(/LEASE_ON_ETCD_ERROR/);
    expect(() => readConfig({ ETCD_ENDPOINTS: 'a:1', MASTRA_STREAM_PARTS: 'sometimes' })).toThrow(/MASTRA_STREAM_PARTS/);
    expect(readConfig({ ETCD_ENDPOINTS: 'a:1', MASTRA_STREAM_PARTS: 'write-behind' }).etcd.publishMode).toBeTypeOf('function');
    const config = readConfig({ ETCD_ENDPOINTS: 'https://etcd-0:2379, https://etcd-1:2379', ETCD_USERNAME: 'u', ETCD_PASSWORD: 'p' });
    expect(config.etcd.hosts).toEqual(['https://etcd-0:2379', 'https://etcd-1:2379']);
    expect(config.etcd.auth).toEqual({ username: 'u', password: 'p' });
  });
});
