import type { ClusterMember, FaultableCluster, MemberState, MemberStatus } from './types.js';
import { removeClusterLayout, type ClusterLayout, type MemberAddresses } from './layout.js';
import type { MemberDriver, MemberLaunch } from './member-driver.js';
import { fetchMemberStatus, isMemberHealthy, transferLeadership, type ProbeTls } from './member-probe.js';
import type { FaultNetwork } from './network/fault-network.js';
import { waitFor } from './wait-for.js';

const DEFAULT_HEALTH_TIMEOUT_MS = 30_000;
const DEFAULT_LEADER_TIMEOUT_MS = 15_000;
/** Per-probe budget: a paused or partitioned member must not stall a whole poll round. */
const PROBE_TIMEOUT_MS = 1_000;
/** Between two probe rounds: each round opens a connection per member. */
const PROBE_EVERY_MS = 100;

/**
 * A started cluster (see `launchCluster`). It implements the network faults whether or not it has a
 * fault network, so there is one class; `startCluster`'s types hand them out only with `faultProxies`.
 */
export class ManagedCluster implements FaultableCluster {
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly layout: ClusterLayout,
    private readonly addresses: MemberAddresses,
    private readonly network: FaultNetwork | undefined,
    private readonly driver: MemberDriver,
    private readonly launches: readonly MemberLaunch[],
    private readonly forgetLayout: () => void,
    private readonly probeTls: ProbeTls | undefined,
  ) {}

  get size(): number {
    return this.layout.members.length;
  }

  endpoints(): string[] {
    return this.layout.members.map((m) => this.addresses.clientUrl(m.index));
  }

  endpoint(i: number): string {
    return this.addresses.clientUrl(this.member(i).index);
  }

  members(): ClusterMember[] {
    return this.layout.members.map((m) => ({ index: m.index, name: m.name, state: this.state(m.index) }));
  }

  async leader(timeoutMs = DEFAULT_LEADER_TIMEOUT_MS): Promise<number> {
    const quorum = Math.floor(this.size / 2) + 1;
    return waitFor(
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
      { timeoutMs, intervalMs: PROBE_EVERY_MS },
    );
  }

  async knowsLeader(i: number): Promise<boolean | undefined> {
    const status = await fetchMemberStatus(this.member(i).clientPort, PROBE_TIMEOUT_MS, this.probeTls);
    return status === undefined ? undefined : status.leaderId !== '0';
  }

  async moveLeader(i: number, timeoutMs = DEFAULT_LEADER_TIMEOUT_MS): Promise<void> {
    const target = this.member(i);
    await waitFor(
      `member ${i} to lead`,
      async () => {
        const leader = await this.leader(timeoutMs);
        if (leader === i) return true;
        const status = await fetchMemberStatus(target.clientPort, PROBE_TIMEOUT_MS, this.probeTls);
        // Asked again on the next round when the target does not answer or the leader refuses (an election under way).
        if (status !== undefined) {
          await transferLeadership(this.layout.members[leader]!.clientPort, status.memberId, PROBE_TIMEOUT_MS * 5, this.probeTls);
        }
        return undefined;
      },
      { timeoutMs, intervalMs: PROBE_EVERY_MS },
    );
  }

  async kill(i: number): Promise<void> {
    await this.driver.kill(this.member(i).index);
  }

  async restart(i: number): Promise<void> {
    const member = this.member(i);
    await this.driver.start(this.launches[member.index]!);
    // /health needs a quorum read, so "serves" here means it rejoined, not merely listens.
    await waitFor(`member ${i} to serve after restart`, () => this.probeHealthy(member.index), {
      timeoutMs: DEFAULT_HEALTH_TIMEOUT_MS,
      intervalMs: PROBE_EVERY_MS,
    });
  }

  async pause(i: number): Promise<void> {
    await this.driver.pause(this.member(i).index);
  }

  async resume(i: number): Promise<void> {
    await this.driver.resume(this.member(i).index);
  }

  async blackhole(i: number): Promise<void> {
    this.faultNetwork().blackhole(this.member(i).index, true);
  }

  async cutClient(i: number): Promise<void> {
    this.faultNetwork().cutClient(this.member(i).index, true);
  }

  async isolate(i: number): Promise<void> {
    this.faultNetwork().isolate(this.member(i).index, true);
  }

  async holdOneWay(from: number, to: number): Promise<void> {
    const a = this.member(from).index;
    const b = this.member(to).index;
    if (a === b) throw new RangeError(`a one-way hold needs two members, got ${from} twice`);
    this.faultNetwork().holdOneWay(a, b, true);
  }

  async heal(i: number): Promise<void> {
    this.faultNetwork().heal(this.member(i).index);
  }

  async healAll(): Promise<void> {
    for (const m of this.layout.members) this.faultNetwork().heal(m.index);
  }

  async setLatency(i: number, ms: number, jitterMs = 0): Promise<void> {
    checkDelays(ms, jitterMs);
    this.faultNetwork().setLatency(this.member(i).index, ms, jitterMs);
  }

  async setClientLatency(i: number, ms: number, jitterMs = 0): Promise<void> {
    checkDelays(ms, jitterMs);
    this.faultNetwork().setClientLatency(this.member(i).index, ms, jitterMs);
  }

  async dropResponses(i: number, on: boolean): Promise<void> {
    this.faultNetwork().dropResponses(this.member(i).index, on);
  }

  clientConnections(i: number): { accepted: number; refused: number; lateDeliveries: number } {
    const { accepted, refused, lateDeliveries } = this.faultNetwork().clientProxy(this.member(i).index);
    return { accepted, refused, lateDeliveries };
  }

  async status(i: number): Promise<MemberStatus | undefined> {
    const member = this.member(i);
    if (this.driver.unavailable(member.index) !== undefined) return undefined;
    return fetchMemberStatus(member.clientPort, PROBE_TIMEOUT_MS, this.probeTls);
  }

  async waitHealthy(timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS): Promise<void> {
    await waitFor(
      'every member to report healthy',
      async () => {
        const healthy = await Promise.all(this.layout.members.map((m) => this.probeHealthy(m.index)));
        return healthy.every((h) => h === true) ? true : undefined;
      },
      { timeoutMs, intervalMs: PROBE_EVERY_MS },
    );
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      try {
        await this.driver.stopAll();
      } finally {
        await this.network?.close();
        await removeClusterLayout(this.layout);
        this.forgetLayout();
      }
    })();
    return this.stopping;
  }

  private state(index: number): MemberState {
    const reason = this.driver.unavailable(index);
    if (reason === undefined) return 'running';
    return reason === 'paused' ? 'paused' : 'killed';
  }

  private faultNetwork(): FaultNetwork {
    if (this.network === undefined) throw new Error('this cluster was started without faultProxies: it has no network to fault');
    return this.network;
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

function checkDelays(ms: number, jitterMs: number): void {
  for (const [name, value] of [['latency ms', ms], ['jitter ms', jitterMs]] as const) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
}
