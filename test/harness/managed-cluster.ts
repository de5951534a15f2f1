import type { ClusterOptions, TestCluster } from './cluster.js';
import {
  createClusterLayout,
  removeClusterLayout,
  removeClusterLayoutSync,
  type ClusterLayout,
} from './cluster-layout.js';
import { etcdArgs } from './etcd-args.js';
import { onProcessExit } from './exit-cleanup.js';
import { logTail } from './log-tail.js';
import type { MemberDriver, MemberLaunch } from './member-driver.js';
import { fetchMemberStatus, isMemberHealthy, probeTls, type ProbeTls } from './member-probe.js';
import { ClusterNetwork } from './network.js';
import { waitUntil } from './wait.js';

const START_TIMEOUT_MS = 30_000;
const DEFAULT_HEALTH_TIMEOUT_MS = 30_000;
const DEFAULT_LEADER_TIMEOUT_MS = 15_000;
/** Per-probe budget: a paused or partitioned member must not stall a whole poll round. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * Lays out, wires and starts a cluster on the given driver; on any failure everything
 * started so far is torn down and the error carries the members' log tails.
 */
export async function launchCluster(driver: MemberDriver, options: ClusterOptions): Promise<TestCluster> {
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be a positive integer, got ${size}`);

  const layout = await createClusterLayout(size);
  const forgetLayout = onProcessExit(() => removeClusterLayoutSync(layout));
  let network: ClusterNetwork | undefined;
  let cluster: ManagedCluster | undefined;
  try {
    const tls = options.tls;
    network = await ClusterNetwork.create(layout.members, tls === undefined ? 'http' : 'https');
    const peerUrls = layout.members.map((m) => network!.peerUrl(m.index));
    const launches = layout.members.map((member) => ({
      ...member,
      args: etcdArgs(layout, member, { clientUrl: network!.clientUrl(member.index), peerUrls }, options),
      readOnlyFiles: tls === undefined ? [] : [tls.ca, tls.cert, tls.key],
    }));
    cluster = new ManagedCluster(layout, network, driver, launches, forgetLayout, probeTls(tls));
    // All at once: a member of a new cluster only serves once a quorum has started.
    await Promise.all(launches.map((launch) => driver.start(launch)));
    await cluster.waitHealthy(START_TIMEOUT_MS);
    return cluster;
  } catch (error) {
    const logs = await Promise.all(
      layout.members.map(async (m) => `--- ${m.name} (${m.logFile}) ---\n${await logTail(m.logFile)}`),
    );
    if (cluster !== undefined) await cluster.stop();
    else {
      await driver.stopAll();
      await network?.close();
      await removeClusterLayout(layout);
      forgetLayout();
    }
    throw new Error(`etcd test cluster failed to start: ${(error as Error).message}\n${logs.join('\n')}`, {
      cause: error,
    });
  }
}

class ManagedCluster implements TestCluster {
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly layout: ClusterLayout,
    private readonly network: ClusterNetwork,
    private readonly driver: MemberDriver,
    private readonly launches: readonly MemberLaunch[],
    private readonly forgetLayout: () => void,
    private readonly probeTls: ProbeTls | undefined,
  ) {}

  get size(): number {
    return this.layout.members.length;
  }

  endpoints(): string[] {
    return this.layout.members.map((m) => this.network.clientUrl(m.index));
  }

  endpoint(i: number): string {
    return this.network.clientUrl(this.member(i).index);
  }

  async leader(timeoutMs = DEFAULT_LEADER_TIMEOUT_MS): Promise<number> {
    const quorum = Math.floor(this.size / 2) + 1;
    return waitUntil(
      'a leader named by a quorum of members',
      async () => {
        const statuses = await Promise.all(
          this.layout.members.map((m) =>
            this.driver.unavailable(m.index) === undefined
              ? fetchMemberStatus(m.clientPort, PROBE_TIMEOUT_MS, this.probeTls)
              : undefined,
          ),
        );
        // Just after a kill or a partition two members can each believe in a different leader;
        // only one named by a quorum, and claiming the role itself, is the real one.
        for (const [index, status] of statuses.entries()) {
          if (status === undefined || status.leaderId !== status.memberId) continue;
          const votes = statuses.filter((s) => s?.leaderId === status.memberId).length;
          if (votes >= quorum) return index;
        }
        return undefined;
      },
      { timeoutMs },
    );
  }

  async kill(i: number): Promise<void> {
    await this.driver.kill(this.member(i).index);
  }

  async restart(i: number): Promise<void> {
    const member = this.member(i);
    await this.driver.start(this.launches[member.index]!);
    // /health needs a quorum read, so "serves" here means it rejoined, not merely listens.
    await waitUntil(`member ${i} to serve after restart`, () => this.probeHealthy(member.index), {
      timeoutMs: DEFAULT_HEALTH_TIMEOUT_MS,
    });
  }

  async pause(i: number): Promise<void> {
    await this.driver.pause(this.member(i).index);
  }

  async resume(i: number): Promise<void> {
    await this.driver.resume(this.member(i).index);
  }

  async blackhole(i: number): Promise<void> {
    this.network.blackhole(this.member(i).index, true);
  }

  async heal(i: number): Promise<void> {
    this.network.heal(this.member(i).index);
  }

  async setLatency(i: number, ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency ms must be a finite number >= 0, got ${ms}`);
    this.network.setLatency(this.member(i).index, ms);
  }

  async dropResponses(i: number, on: boolean): Promise<void> {
    this.network.dropResponses(this.member(i).index, on);
  }

  async waitHealthy(timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS): Promise<void> {
    await waitUntil(
      'every member to report healthy',
      async () => {
        const healthy = await Promise.all(this.layout.members.map((m) => this.probeHealthy(m.index)));
        return healthy.every((h) => h === true) ? true : undefined;
      },
      { timeoutMs },
    );
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      try {
        await this.driver.stopAll();
      } finally {
        await this.network.close();
        await removeClusterLayout(this.layout);
        this.forgetLayout();
      }
    })();
    return this.stopping;
  }

  /** true when healthy, undefined when not yet; throws when it cannot become healthy. */
  private async probeHealthy(index: number): Promise<true | undefined> {
    const reason = this.driver.unavailable(index);
    if (reason !== undefined) throw new Error(`member ${index} cannot become healthy: ${reason}`);
    const port = this.layout.members[index]!.clientPort;
    return (await isMemberHealthy(port, PROBE_TIMEOUT_MS, this.probeTls)) ? true : undefined;
  }

  private member(i: number) {
    const member = this.layout.members[i];
    if (!Number.isInteger(i) || member === undefined) {
      throw new RangeError(`member index must be an integer in 0..${this.size - 1}, got ${i}`);
    }
    return member;
  }
}
