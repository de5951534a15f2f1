import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdMember } from './etcd-member.js';
import { onExit } from './exit-hooks.js';
import { freePorts } from './free-ports.js';
import { memberServes, memberStatus, type MemberStatus } from './member-probe.js';
import { waitFor } from './wait-for.js';

const PROBE_TIMEOUT_MS = 1000;
const START_TIMEOUT_MS = 30_000;

/**
 * A throwaway etcd cluster of child processes on 127.0.0.1: free ports chosen at run time, data in
 * a temp dir, everything removed by `stop()` — or by the exit hook if the demo dies first.
 */
export class LocalCluster {
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly members: readonly EtcdMember[],
    private readonly dir: string,
    private readonly forgetExitHook: () => void,
  ) {}

  static async start(size = 3, bin = process.env.ETCD_BIN || 'etcd'): Promise<LocalCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-lease-demo-'));
    const members: EtcdMember[] = [];
    const forget = onExit(() => {
      for (const m of members) m.killSync();
      rmSync(dir, { recursive: true, force: true });
    });
    const cluster = new LocalCluster(members, dir, forget);
    try {
      const ports = await freePorts(size * 2);
      const token = `etcd-lease-demo-${randomBytes(4).toString('hex')}`;
      const names = Array.from({ length: size }, (_, i) => `m${i}`);
      const peerUrl = (i: number): string => `http://127.0.0.1:${ports[size + i]}`;
      const initialCluster = names.map((n, i) => `${n}=${peerUrl(i)}`).join(',');
      for (const [i, name] of names.entries()) {
        const clientUrl = `http://127.0.0.1:${ports[i]}`;
        const args = [
          `--name=${name}`,
          `--data-dir=${join(dir, name)}`,
          `--listen-client-urls=${clientUrl}`,
          `--advertise-client-urls=${clientUrl}`,
          `--listen-peer-urls=${peerUrl(i)}`,
          `--initial-advertise-peer-urls=${peerUrl(i)}`,
          `--initial-cluster=${initialCluster}`,
          // Ignored on restart: once the data dir holds a member, etcd rejoins from it.
          '--initial-cluster-state=new',
          `--initial-cluster-token=${token}`,
        ];
        members.push(new EtcdMember(i, name, clientUrl, bin, args, join(dir, `${name}.log`)));
      }
      // All at once: a member of a new cluster only serves once a quorum of its peers is up.
      await Promise.all(members.map((m) => m.start()));
      await cluster.waitHealthy(START_TIMEOUT_MS);
      return cluster;
    } catch (error) {
      const logs = members
        .map((m) => [m.name, tail(join(dir, `${m.name}.log`))])
        .filter(([, log]) => log !== '')
        .map(([name, log]) => `\n--- ${name} ---\n${log}`)
        .join('');
      await cluster.stop();
      throw new Error(`local etcd cluster failed to start: ${(error as Error).message}${logs}`, { cause: error });
    }
  }

  endpoints(): string[] {
    return this.members.map((m) => m.clientUrl);
  }

  /** Resolves once every member answers a linearizable read. */
  async waitHealthy(timeoutMs: number): Promise<void> {
    await Promise.all(this.members.map((m) => this.waitServing(m.index, timeoutMs)));
  }

  /**
   * Index of the leader that a quorum of members names and that claims the role itself — just
   * after a kill two members can briefly believe in different leaders.
   */
  async leader(timeoutMs = 15_000): Promise<number> {
    const quorum = Math.floor(this.members.length / 2) + 1;
    return waitFor(
      'a leader named by a quorum',
      async () => {
        const statuses: (MemberStatus | undefined)[] = await Promise.all(
          this.members.map((m) => (m.state === 'running' ? memberStatus(m.clientUrl, PROBE_TIMEOUT_MS) : undefined)),
        );
        for (const [i, status] of statuses.entries()) {
          if (status === undefined || status.leaderId !== status.memberId) continue;
          if (statuses.filter((s) => s?.leaderId === status.memberId).length >= quorum) return i;
        }
        return undefined;
      },
      timeoutMs,
      200,
    );
  }

  /** The leader as it is right now, without waiting; undefined during an election. */
  async currentLeader(): Promise<number | undefined> {
    return this.leader(1).catch(() => undefined);
  }

  async kill(i: number): Promise<void> {
    await this.member(i).kill();
  }

  /** Starts a killed member again on its data dir; resolves once it serves linearizable reads. */
  async restart(i: number, timeoutMs = 30_000): Promise<void> {
    await this.member(i).start();
    await this.waitServing(i, timeoutMs);
  }

  pause(i: number): void {
    this.member(i).pause();
  }

  resume(i: number): void {
    this.member(i).resume();
  }

  /** Kills every member and removes the data dir; idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all(this.members.map((m) => m.kill()));
      await rm(this.dir, { recursive: true, force: true });
      this.forgetExitHook();
    })();
    return this.stopping;
  }

  private async waitServing(i: number, timeoutMs: number): Promise<void> {
    const member = this.member(i);
    await waitFor(
      `${member.name} to serve`,
      async () => {
        if (member.state === 'killed') throw new Error(`${member.name} is not running`);
        return (await memberServes(member.clientUrl, PROBE_TIMEOUT_MS)) ? true : undefined;
      },
      timeoutMs,
      200,
    );
  }

  private member(i: number): EtcdMember {
    const member = this.members[i];
    if (member === undefined) throw new RangeError(`no member ${i}`);
    return member;
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}
