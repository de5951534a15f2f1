import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { spawnLogged, type Child } from './child.js';
import { freePorts } from './ports.js';
import { tempDir } from './temp-dir.js';

export interface BenchCluster {
  endpoints(): string[];
  stop(): Promise<void>;
}

const MEMBERS = 3;

/**
 * A 3-member etcd cluster of child processes on free loopback ports, data in a temp dir.
 *
 * The test harness has a fuller launcher (fault proxies, restarts) but it is not part of the
 * committed tree; the benchmark needs none of that, only plain members talking directly to each
 * other, so that no proxy hop distorts the latencies being compared.
 */
export async function startBenchCluster(options: { bin?: string; startTimeoutMs?: number } = {}): Promise<BenchCluster> {
  const bin = options.bin ?? process.env.ETCD_BIN ?? 'etcd';
  const tmp = tempDir('etcd-lease-bench-');
  const dir = tmp.path;
  const ports = await freePorts(MEMBERS * 2);
  const clientPort = (i: number) => ports[i * 2]!;
  const peerPort = (i: number) => ports[i * 2 + 1]!;
  const name = (i: number) => `bench${i}`;
  const initialCluster = Array.from({ length: MEMBERS }, (_, i) => `${name(i)}=http://127.0.0.1:${peerPort(i)}`).join(',');
  // One token for all members: the cluster ID is derived from it, so members given different tokens
  // form different clusters and never elect a leader together.
  const token = `bench-${process.pid}-${Date.now()}`;
  const children: Child[] = [];

  const stop = async (): Promise<void> => {
    await Promise.all(children.map((c) => c.stop()));
    tmp.remove();
  };

  try {
    for (let i = 0; i < MEMBERS; i++) {
      const args = [
        `--name=${name(i)}`,
        `--data-dir=${join(dir, name(i))}`,
        `--listen-client-urls=http://127.0.0.1:${clientPort(i)}`,
        `--advertise-client-urls=http://127.0.0.1:${clientPort(i)}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort(i)}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort(i)}`,
        `--initial-cluster=${initialCluster}`,
        '--initial-cluster-state=new',
        `--initial-cluster-token=${token}`,
        '--logger=zap',
        '--log-outputs=stderr',
        // Info logs every slow apply under load; the log is only read when something fails.
        '--log-level=warn',
        // A full run writes a few million revisions; the benchmark compacts between scenarios, and a
        // 4 GiB quota (default 2 GiB) keeps a NOSPACE alarm from ending a long run early.
        '--quota-backend-bytes=4294967296',
      ];
      const child = await spawnLogged(`etcd member ${i}`, bin, args, join(dir, `${name(i)}.log`)).catch((error: Error) => {
        throw new Error(`${error.message} (install etcd ≥ 3.4, e.g. \`apt-get install -y etcd-server\`, or set ETCD_BIN)`);
      });
      children.push(child);
    }
    const endpoints = Array.from({ length: MEMBERS }, (_, i) => `127.0.0.1:${clientPort(i)}`);
    await waitForQuorum(endpoints, children, options.startTimeoutMs ?? 20_000);
    return { endpoints: () => endpoints, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A write succeeds only once a leader is elected and a majority applies it: that is "ready". */
async function waitForQuorum(endpoints: string[], children: Child[], timeoutMs: number): Promise<void> {
  const client = new Etcd3({ hosts: endpoints.map((e) => `http://${e}`), dialTimeout: 500 });
  const giveUpAt = Date.now() + timeoutMs;
  let lastError: unknown;
  try {
    while (Date.now() < giveUpAt) {
      const dead = children.find((c) => c.exitReason() !== undefined);
      if (dead) throw new Error(`${dead.exitReason()} while the cluster was starting:\n${dead.logTail()}`);
      try {
        await client.put('bench/ready').value('1').options({ deadline: new Date(Date.now() + 1000) });
        await client.delete().key('bench/ready');
        return;
      } catch (error) {
        lastError = error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`etcd cluster not ready after ${timeoutMs} ms: ${String(lastError)}\n${children[0]?.logTail()}`);
  } finally {
    client.close();
  }
}
