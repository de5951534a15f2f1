import { noop } from 'cockatiel';
import { Etcd3, GRPCDeadlineExceededError } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from './cluster.js';

/**
 * The container driver needs a Docker engine and a locally built image, which a plain
 * `vitest run` cannot assume; CI opts in with ETCD_TEST_DRIVER=container after running
 * ensure-docker.sh and build-etcd-image.sh. Only what differs from the process driver
 * (start, kill/restart on the same data dir, pause) is covered here; the proxies and health
 * checks are shared and tested in harness.test.ts.
 */
const enabled = process.env.ETCD_TEST_DRIVER === 'container';
const TIMEOUT_MS = 90_000;

describe.runIf(enabled)('container cluster harness', () => {
  let cluster: TestCluster;
  const clients: Etcd3[] = [];
  const clientFor = (hosts: string) => {
    const client = new Etcd3({ hosts, faultHandling: { host: () => noop, global: noop } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    cluster = await startCluster({ driver: 'container' });
  }, TIMEOUT_MS);
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  afterAll(async () => {
    await cluster?.stop();
  }, TIMEOUT_MS);

  it('a killed leader is replaced, and its restarted container rejoins from the same data dir', { timeout: TIMEOUT_MS }, async () => {
    await clientFor(cluster.endpoint(0)).put('before-kill').value('kept');
    const oldLeader = await cluster.leader();
    await cluster.kill(oldLeader);
    const newLeader = await cluster.leader(15_000);
    expect(newLeader).not.toBe(oldLeader);

    await cluster.restart(oldLeader);
    await cluster.waitHealthy();
    expect(await clientFor(cluster.endpoint(oldLeader)).get('before-kill').string()).toBe('kept');
  });

  it('a paused container stalls its endpoint until unpaused', { timeout: TIMEOUT_MS }, async () => {
    const follower = ((await cluster.leader()) + 1) % cluster.size;
    await cluster.pause(follower);
    try {
      await expect(
        clientFor(cluster.endpoint(follower)).get('x').options({ deadline: Date.now() + 1_000 }),
      ).rejects.toBeInstanceOf(GRPCDeadlineExceededError);
    } finally {
      await cluster.resume(follower);
    }
    await cluster.waitHealthy();
    expect(await clientFor(cluster.endpoint(follower)).get('before-kill').string()).toBe('kept');
  });
});
