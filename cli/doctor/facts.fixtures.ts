import type { ClusterFacts, MemberFacts } from './facts.js';

const MIB = 1024 * 1024;

/** A healthy member of a three-member cluster on this machine, as gather-facts.ts would read it. */
export function healthyMember(i: number, overrides: Partial<MemberFacts['status']> = {}): MemberFacts {
  return {
    endpoint: `http://127.0.0.1:${2379 + i * 10}`,
    status: {
      memberId: `m${i}`,
      version: '3.5.30',
      dbSizeBytes: 20 * MIB,
      dbSizeInUseBytes: 18 * MIB,
      leaderId: 'm0',
      raftTerm: 2,
      raftIndex: 5000,
      raftAppliedIndex: 5000,
      errors: [],
      isLearner: false,
      ...overrides,
    },
    metrics: { quotaBackendBytes: 2048 * MIB, leaderChangesSeen: 1, hasLeader: 1 },
  };
}

/** A cluster set up the way docs/security.md and docs/operations.md ask: the doctor finds nothing to fix. */
export function healthyFacts(overrides: Partial<ClusterFacts> = {}): ClusterFacts {
  const members = [0, 1, 2].map((i) => healthyMember(i));
  return {
    endpoints: members.map((m) => m.endpoint),
    prefix: 'mastra/lease/',
    eventPrefix: 'mastra/events/',
    members,
    memberList: members.map((m, i) => ({ id: `m${i}`, name: `etcd-${i}`, clientUrls: [m.endpoint], isLearner: false })),
    alarms: [],
    compaction: { revision: 50_000, oldestReadable: 45_000 },
    access: {
      username: 'app',
      readsAuthRecords: false,
      probes: [
        { where: 'lease prefix', key: 'mastra/lease/.p', read: 'allowed', write: 'allowed' },
        { where: 'event prefix', key: 'mastra/events/.p', read: 'allowed', write: 'allowed' },
        { where: 'beside the prefixes', key: 'mastra/.p', read: 'denied', write: 'denied' },
        { where: 'top level', key: '.p', read: 'denied', write: 'denied' },
      ],
    },
    tls: { endpoints: members.map((m) => ({ endpoint: m.endpoint, tls: false, loopback: true })), certificates: [] },
    usage: { leaseKeys: 3, leaseKeysWithoutLease: 0, eventKeys: 10, etcdLeases: 2 },
    unreadable: {},
    ...overrides,
  };
}
