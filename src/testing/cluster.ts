import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { chooseLauncher } from '../../launcher/launcher-choice.js';
import type { ClusterDriverName, ClusterMember, ClusterTls, FaultableCluster, MemberStatus } from '../../launcher/types.js';
import { waitFor } from '../../launcher/wait-for.js';

/**
 * A local etcd cluster for your tests, with a fault proxy in front of every member's client and peer ports.
 * It is the launcher this package's own suites run on (launcher/), handed out with the options a user needs.
 */

export interface StartEtcdClusterOptions {
  /** Number of members. @default 3 */
  members?: number;
  /**
   * `'process'`: etcd child processes of `etcdBin` (else ETCD_BIN, else `etcd` on PATH). `'container'`: one container
   * per member of `image`, through the optional peer `testcontainers` and a Docker engine. @default ETCD_DRIVER, else
   * processes when there is an etcd binary, else containers
   */
  driver?: ClusterDriverName;
  /** The etcd binary of the process driver. @default ETCD_BIN, else `etcd` on PATH */
  etcdBin?: string;
  /**
   * The image of the container driver: the official etcd image, or one built from a binary with `buildEtcdImage`.
   * @default ETCD_IMAGE, else the official image of the v3.5 line at a pinned tag
   */
  image?: string;
  /** etcd --election-timeout. @default 1000 (etcd's own) */
  electionTimeoutMs?: number;
  /** etcd --heartbeat-interval. @default 100 (etcd's own) */
  heartbeatMs?: number;
  /**
   * etcd --quota-backend-bytes: the backend size at which etcd raises its NOSPACE alarm. Set it (16 MiB is quick to
   * fill) to use `fillDisk`. @default etcd's own, 2 GiB
   */
  quotaBackendBytes?: number;
  /** More etcd flags for every member, appended last, e.g. `['--max-txn-ops=16']`. */
  extraArgs?: string[];
  /** Serve client URLs over TLS (see ClusterTls). @default plaintext */
  tls?: ClusterTls;
}

/** Members paused to take the quorum away; `restore()` resumes them and waits until the cluster is healthy. */
export interface QuorumLoss {
  readonly members: readonly number[];
  restore(): Promise<void>;
}

/**
 * A running cluster. Every member index is 0-based. Faults on a member: `kill`, `restart`, `pause`/`resume`,
 * `blackhole`, `isolate` (peers only), `holdOneWay`, `heal`/`healAll`. Faults on a member's client link:
 * `cutClient` (bytes held, delivered late), `setClientLatency` (a slow link), `dropResponses`. Whole cluster:
 * `loseQuorum`, `fillDisk`/`freeDisk` (NOSPACE), `moveLeader`. `stop()` (or `await using`) removes everything;
 * an exit hook and SIGINT/SIGTERM/SIGHUP handlers do it when the test run dies first.
 */
export interface EtcdTestCluster extends FaultableCluster, AsyncDisposable {
  /** The backend quota it was started with (`quotaBackendBytes`), which `fillDisk` needs. */
  readonly quotaBackendBytes: number | undefined;
  /** Pauses a majority of members, the leader among them: reads and writes wait or fail until `restore()`. */
  loseQuorum(): Promise<QuorumLoss>;
  /**
   * Writes filler under `__etcd-testing/filler/` until etcd refuses writes with NOSPACE and its alarm is raised.
   * Needs `quotaBackendBytes`. Reads, deletes and lease revocations keep working; puts, grants and txns that put fail.
   */
  fillDisk(): Promise<void>;
  /** What an operator does after NOSPACE: delete the filler, compact, defragment every member, disarm the alarm. */
  freeDisk(): Promise<void>;
}

export async function startEtcdCluster(options: StartEtcdClusterOptions = {}): Promise<EtcdTestCluster> {
  const size = options.members ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`options.members must be a positive integer, got ${String(size)}`);
  const quota = options.quotaBackendBytes;
  if (quota !== undefined && (!Number.isInteger(quota) || quota <= 0)) {
    throw new RangeError(`options.quotaBackendBytes must be a positive integer, got ${String(quota)}`);
  }
  const env = { ...process.env };
  if (options.etcdBin !== undefined) env.ETCD_BIN = options.etcdBin;
  if (options.image !== undefined) env.ETCD_IMAGE = options.image;
  const launcher = await chooseLauncher(options.driver, env);
  const clusterOptions = {
    size,
    faultProxies: true as const,
    // The cluster itself answers SIGINT/SIGTERM: a test run has no teardown order of its own.
    signals: 'cluster' as const,
    label: 'etcd-testing',
    extraArgs: [...(quota === undefined ? [] : [`--quota-backend-bytes=${quota}`]), ...(options.extraArgs ?? [])],
    ...(options.electionTimeoutMs === undefined ? {} : { electionTimeoutMs: options.electionTimeoutMs }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.tls === undefined ? {} : { tls: options.tls }),
  };
  // Loaded only for the driver chosen: the process driver never loads testcontainers.
  const cluster =
    launcher.driver === 'process'
      ? await (await import('../../launcher/process-driver.js')).startProcessCluster(clusterOptions, launcher.bin)
      : await (await import('../../launcher/container-driver.js')).startContainerCluster(clusterOptions, launcher.image);
  return new TestCluster(cluster, quota);
}

const FILLER_PREFIX = '__etcd-testing/filler/';

class TestCluster implements EtcdTestCluster {
  constructor(
    private readonly cluster: FaultableCluster,
    readonly quotaBackendBytes: number | undefined,
  ) {}

  get size(): number {
    return this.cluster.size;
  }
  endpoints(): string[] {
    return this.cluster.endpoints();
  }
  endpoint(i: number): string {
    return this.cluster.endpoint(i);
  }
  members(): ClusterMember[] {
    return this.cluster.members();
  }
  leader(timeoutMs?: number): Promise<number> {
    return this.cluster.leader(timeoutMs);
  }
  knowsLeader(i: number): Promise<boolean | undefined> {
    return this.cluster.knowsLeader(i);
  }
  moveLeader(i: number, timeoutMs?: number): Promise<void> {
    return this.cluster.moveLeader(i, timeoutMs);
  }
  kill(i: number): Promise<void> {
    return this.cluster.kill(i);
  }
  restart(i: number): Promise<void> {
    return this.cluster.restart(i);
  }
  pause(i: number): Promise<void> {
    return this.cluster.pause(i);
  }
  resume(i: number): Promise<void> {
    return this.cluster.resume(i);
  }
  blackhole(i: number): Promise<void> {
    return this.cluster.blackhole(i);
  }
  cutClient(i: number): Promise<void> {
    return this.cluster.cutClient(i);
  }
  isolate(i: number): Promise<void> {
    return this.cluster.isolate(i);
  }
  holdOneWay(from: number, to: number): Promise<void> {
    return this.cluster.holdOneWay(from, to);
  }
  heal(i: number): Promise<void> {
    return this.cluster.heal(i);
  }
  healAll(): Promise<void> {
    return this.cluster.healAll();
  }
  setLatency(i: number, ms: number, jitterMs?: number): Promise<void> {
    return this.cluster.setLatency(i, ms, jitterMs);
  }
  setClientLatency(i: number, ms: number, jitterMs?: number): Promise<void> {
    return this.cluster.setClientLatency(i, ms, jitterMs);
  }
  dropResponses(i: number, on: boolean): Promise<void> {
    return this.cluster.dropResponses(i, on);
  }
  clientConnections(i: number): { accepted: number; refused: number; lateDeliveries: number } {
    return this.cluster.clientConnections(i);
  }
  status(i: number): Promise<MemberStatus | undefined> {
    return this.cluster.status(i);
  }
  waitHealthy(timeoutMs?: number): Promise<void> {
    return this.cluster.waitHealthy(timeoutMs);
  }
  stop(): Promise<void> {
    return this.cluster.stop();
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async loseQuorum(): Promise<QuorumLoss> {
    const leader = await this.leader();
    const majority = Math.floor(this.size / 2) + 1;
    const running = this.members().filter((m) => m.state === 'running' && m.index !== leader).map((m) => m.index);
    const paused = [leader, ...running].slice(0, majority);
    if (paused.length < majority) throw new Error(`loseQuorum: only ${paused.length} members run, a majority is ${majority}`);
    for (const i of paused) await this.pause(i);
    return {
      members: paused,
      restore: async () => {
        for (const i of paused) await this.resume(i);
        await this.waitHealthy();
      },
    };
  }

  async fillDisk(): Promise<void> {
    if (this.quotaBackendBytes === undefined) throw new Error('fillDisk needs a cluster started with quotaBackendBytes (e.g. 16 * 1024 * 1024)');
    await this.withClient(async (client) => {
      const value = Buffer.alloc(512 * 1024, 7);
      // A few keys overwritten in turn: the backend keeps every revision until compaction, so it fills.
      for (let i = 0; i < 100_000; i++) {
        try {
          await client.put(`${FILLER_PREFIX}${i % 4}`).value(value);
        } catch (error) {
          if (/database space exceeded/.test(String(error))) break;
          throw error;
        }
      }
      await waitFor('the NOSPACE alarm', async () => (await client.maintenance.alarm({ action: 'Get' })).alarms.some((a) => a.alarm === 'Nospace'), {
        timeoutMs: 10_000,
      });
    });
  }

  async freeDisk(): Promise<void> {
    await this.withClient(async (client) => {
      await client.delete().prefix(FILLER_PREFIX);
      const { header } = await client.kv.range({ key: Buffer.from(FILLER_PREFIX) });
      await client.kv.compact({ revision: header.revision, physical: true });
      for (let i = 0; i < this.size; i++) {
        if (this.members()[i]?.state !== 'running') continue;
        const member = plainClient([this.endpoint(i)]);
        try {
          await member.maintenance.defragment();
        } finally {
          member.close();
        }
      }
      for (const alarm of (await client.maintenance.alarm({ action: 'Get' })).alarms) {
        await client.maintenance.alarm({ action: 'Deactivate', memberID: alarm.memberID, alarm: alarm.alarm });
      }
    });
  }

  private async withClient(use: (client: Etcd3) => Promise<void>): Promise<void> {
    const client = plainClient(this.endpoints());
    try {
      await use(client);
    } finally {
      client.close();
    }
  }
}

/**
 * A client without etcd3's circuit breakers: they would open on the NOSPACE refusals a full disk provokes and turn
 * the recovery's own requests away.
 */
function plainClient(hosts: string[]): Etcd3 {
  return new Etcd3({ hosts, faultHandling: { global: noop, host: () => noop } });
}
