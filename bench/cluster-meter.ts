import { readdirSync, readFileSync } from 'node:fs';

/**
 * What etcd itself spent, read from outside: committed Raft proposals from each member's `/metrics`
 * (`etcd_server_proposals_committed_total`) and each member process's CPU time from `/proc/<pid>/stat`.
 * Proposals, not requests, are the cost the hold-cost table compares: every committed proposal is a log entry
 * fsynced on a quorum, whatever it carries (a Txn of 64 renews is one).
 */
export interface MeterReading {
  /** performance.now() of the reading. */
  atMs: number;
  /** Highest `etcd_server_proposals_committed_total` among the members (each member counts every entry). */
  proposals: number;
  /** Sum over the members of user + system CPU, in ms. */
  memberCpuMs: number;
}

export interface MeterDelta {
  seconds: number;
  proposalsPerSecond: number;
  /** Members' CPU as a share of one core (1 = one core busy). */
  memberCores: number;
}

/** Linux's USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream architecture). */
const TICKS_PER_SECOND = 100;

/** The value of a Prometheus gauge or counter without labels in a /metrics page; undefined when absent. */
export function metricValue(page: string, name: string): number | undefined {
  for (const line of page.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '\t') continue; // a longer name that starts the same
    const value = Number(rest.trim());
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}

/** utime + stime of a /proc/<pid>/stat line, in ms. The command name (field 2) may contain spaces: split after it. */
export function procCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export function meterDelta(from: MeterReading, to: MeterReading): MeterDelta {
  const seconds = (to.atMs - from.atMs) / 1000;
  return {
    seconds,
    proposalsPerSecond: (to.proposals - from.proposals) / seconds,
    memberCores: (to.memberCpuMs - from.memberCpuMs) / 1000 / seconds,
  };
}

/** Reads every member of one cluster; member processes are found by the client URL on their command line. */
export class ClusterMeter {
  private readonly pids: number[];

  constructor(private readonly endpoints: readonly string[]) {
    this.pids = endpoints.map((endpoint) => memberPid(endpoint));
  }

  async read(): Promise<MeterReading> {
    const pages = await Promise.all(this.endpoints.map(async (e) => (await fetch(`${e}/metrics`)).text()));
    const proposals = Math.max(...pages.map((p) => metricValue(p, 'etcd_server_proposals_committed_total') ?? 0));
    const memberCpuMs = this.pids.reduce((sum, pid) => sum + procCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8')), 0);
    return { atMs: performance.now(), proposals, memberCpuMs };
  }
}

function memberPid(endpoint: string): number {
  const flag = `--listen-client-urls=${endpoint}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    if (cmdline.split('\0').includes(flag)) return Number(entry);
  }
  throw new Error(`no etcd process listens on ${endpoint} (container members are not metered)`);
}
