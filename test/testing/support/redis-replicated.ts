import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { killQuietly, onProcessExit } from '../../../launcher/exit-cleanup.js';
import { freePorts } from '../../../launcher/free-ports.js';
import { FaultProxy } from '../../../launcher/network/tcp-proxy.js';
import { waitFor } from '../../support/wait.js';

/**
 * A Redis primary and one replica (Debian's redis-server, no persistence) on free loopback ports, the replica
 * attached through a fault proxy (launcher/network), with the failover an operator or Sentinel performs: the primary
 * dies, the replica is promoted (`REPLICAOF NO ONE`) and clients move to it. Replication is asynchronous: a write the
 * primary acknowledged and had not yet sent to the replica is gone after that.
 */
export class ReplicatedRedis {
  private constructor(
    private readonly servers: ChildProcess[],
    readonly ports: readonly number[],
    private readonly link: FaultProxy,
    private readonly dir: string,
    private readonly forget: () => void,
    private primaryIndex = 0,
  ) {}

  static async start(): Promise<ReplicatedRedis> {
    const ports = await freePorts(2);
    const link = await FaultProxy.listen({ targetPort: ports[0]! });
    // A replica keeps the snapshot of its full sync on disk: in a temp dir, never in the working directory.
    const dir = mkdtempSync(join(tmpdir(), 'redis-failover-'));
    const servers = ports.map((port, i) =>
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', `dump-${i}.rdb`, '--save', '', '--appendonly', 'no', ...(i === 1 ? ['--replicaof', '127.0.0.1', String(link.port)] : [])], {
        stdio: 'ignore',
      }),
    );
    const forget = onProcessExit(() => {
      servers.forEach((s) => killQuietly(s.pid));
      rmSync(dir, { recursive: true, force: true });
    });
    const redis = new ReplicatedRedis(servers, ports, link, dir, forget);
    await waitFor('the replica to be in sync with the primary', async () => (await redis.info(1, 'replication').catch(() => '')).includes('master_link_status:up'), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    return redis;
  }

  /** Port of the current primary: where clients send their commands. */
  get primaryPort(): number {
    return this.ports[this.primaryIndex]!;
  }

  /**
   * The replication link stalls both ways (the proxy stops reading): the replica receives nothing while the primary
   * keeps acknowledging writes. (A SIGSTOPped replica would not do: the kernel keeps receiving for it, and it reads
   * the stream once resumed.)
   */
  stallReplication(): void {
    this.link.setFaults({ holdRequests: true, holdResponses: true });
  }

  /** The primary dies (SIGKILL) with what it had not sent; the replica is promoted; clients use it from now on. */
  async failover(): Promise<void> {
    const primary = this.servers[this.primaryIndex]!;
    primary.kill('SIGKILL');
    await once(primary, 'exit');
    await this.link.close();
    const replica = 1 - this.primaryIndex;
    const client = new Redis({ port: this.ports[replica], host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.call('REPLICAOF', 'NO', 'ONE');
    } finally {
      client.disconnect();
    }
    this.primaryIndex = replica;
  }

  async stop(): Promise<void> {
    for (const server of this.servers) {
      killQuietly(server.pid);
      if (server.exitCode === null && server.signalCode === null) await once(server, 'exit');
    }
    await this.link.close();
    rmSync(this.dir, { recursive: true, force: true });
    this.forget();
  }

  private async info(index: number, section: string): Promise<string> {
    const client = new Redis({ port: this.ports[index], host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {}); // a refused connection rejects the command below
    try {
      return await client.info(section);
    } finally {
      client.disconnect();
    }
  }
}
