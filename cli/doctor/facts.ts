/**
 * What `etcd-lease doctor` knows about the cluster, as plain data: gathered once (gather-facts.ts), then judged by
 * pure functions (checks/), so every judgement is unit-tested on hand-made facts and the cluster tests only have to
 * show that the facts are read right.
 */

/** One member as its own Status call and /metrics page describe it. */
export interface MemberFacts {
  endpoint: string;
  /** Absent when the member did not answer Status; `error` says why. */
  status?: MemberStatus;
  error?: string;
  /** It answered, but refused Status to this user (etcd versions that ask admin rights for maintenance calls). */
  refused?: true;
  /** Selected series of the member's /metrics page (by name, labels dropped); absent when it could not be read. */
  metrics?: MemberMetrics;
}

export interface MemberStatus {
  /** The member's own id (hex), from the answer's header. */
  memberId: string;
  version: string;
  dbSizeBytes: number;
  /** Bytes in use inside the db file (etcd ≥ 3.4); the rest is free pages a defrag would give back. */
  dbSizeInUseBytes: number;
  leaderId: string;
  raftTerm: number;
  raftIndex: number;
  raftAppliedIndex: number;
  errors: string[];
  isLearner: boolean;
}

export interface MemberMetrics {
  quotaBackendBytes?: number;
  leaderChangesSeen?: number;
  hasLeader?: number;
}

/** A member as the member list names it (ids in hex, as etcdctl prints them). */
export interface ListedMember {
  id: string;
  name: string;
  clientUrls: string[];
  isLearner: boolean;
}

export interface Alarm {
  memberId: string;
  alarm: string;
}

/** What one probe found: the request was allowed, refused for lack of permission, or failed otherwise. */
export type ProbeOutcome = 'allowed' | 'denied' | 'failed';

/** A read and a would-be write (a transaction whose compare cannot hold, so nothing is written) at one place. */
export interface AccessProbe {
  /** 'lease prefix', 'event prefix', 'beside the prefixes', 'top level'. */
  where: string;
  key: string;
  read: ProbeOutcome;
  write: ProbeOutcome;
}

export interface AccessFacts {
  /** The user the doctor connected as; undefined when none was given. */
  username?: string;
  /** With a user: true when it may read etcd's user records (only root may). */
  readsAuthRecords?: boolean;
  probes: AccessProbe[];
}

export interface TlsFacts {
  /** Each endpoint's scheme and whether its host is this machine (loopback). */
  endpoints: Array<{ endpoint: string; tls: boolean; loopback: boolean }>;
  /** Certificates given with --cacert / --cert, with their expiry. */
  certificates: Array<{ file: string; role: 'CA' | 'client'; notAfter: string; subject: string }>;
}

export interface UsageFacts {
  leaseKeys?: number;
  /** Keys under the lease prefix attached to no etcd lease: they never expire (left by a tool or a hand). */
  leaseKeysWithoutLease?: number;
  eventKeys?: number;
  /** Live etcd leases on the whole cluster (etcd has no per-prefix count). */
  etcdLeases?: number;
  error?: string;
}

export interface CompactionFacts {
  revision: number;
  /** The oldest revision still readable; 1 when nothing was ever compacted. */
  oldestReadable: number;
}

export interface ClusterFacts {
  endpoints: string[];
  prefix: string;
  eventPrefix: string;
  members: MemberFacts[];
  memberList?: ListedMember[];
  alarms?: Alarm[];
  compaction?: CompactionFacts;
  access: AccessFacts;
  tls: TlsFacts;
  usage: UsageFacts;
  /** Failures to read a whole section (the member list, alarms, compaction), by section. */
  unreadable: Record<string, string>;
}
