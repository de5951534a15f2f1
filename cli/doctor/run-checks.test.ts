import { describe, expect, it } from 'vitest';
import type { ClusterFacts } from './facts.js';
import { healthyFacts, healthyMember } from './facts.fixtures.js';
import { needsFixing, type Finding } from './finding.js';
import { runChecks } from './run-checks.js';

const MIB = 1024 * 1024;
const NOW = new Date('2026-12-03T12:00:00Z');

function findings(facts: ClusterFacts): Finding[] {
  return runChecks(facts, NOW);
}
function about(facts: ClusterFacts, check: string): Finding[] {
  return findings(facts).filter((f) => f.check === check);
}
function worst(list: Finding[]): string {
  const order = ['ok', 'note', 'warn', 'fail'];
  return list.map((f) => f.level).sort((a, b) => order.indexOf(b) - order.indexOf(a))[0] ?? 'none';
}

describe('doctor checks', () => {
  it('a cluster set up right needs nothing fixed, and every check says so', () => {
    const result = findings(healthyFacts());
    expect(needsFixing(result)).toBe(false);
    expect(new Set(result.map((f) => f.check))).toEqual(
      new Set(['members', 'versions', 'leader', 'raft', 'alarms', 'quota', 'fragmentation', 'compaction', 'auth', 'permissions', 'tls', 'keys']),
    );
  });

  it('members: an endpoint that does not answer is a warning, none answering a failure; a member missing from the endpoints is a warning', () => {
    const facts = healthyFacts();
    facts.members[2] = { endpoint: facts.members[2]!.endpoint, error: 'deadline exceeded' };
    expect(worst(about(facts, 'members'))).toBe('warn');
    const none = healthyFacts({ members: healthyFacts().members.map((m) => ({ endpoint: m.endpoint, error: 'refused' })) });
    expect(worst(about(none, 'members'))).toBe('fail');
    const two = healthyFacts();
    two.endpoints = two.endpoints.slice(0, 2);
    const missing = about(two, 'members').find((f) => f.level === 'warn');
    expect(missing?.summary).toMatch(/1 of 3 cluster members are not among the endpoints given: etcd-2/);
    expect(missing?.fix).toContain(two.members[2]!.endpoint);
  });

  it('members: Status refused to a least-privilege user is a note, not a member down', () => {
    const facts = healthyFacts({ members: healthyFacts().members.map((m) => ({ endpoint: m.endpoint, error: 'etcdserver: permission denied', refused: true })) });
    const result = about(facts, 'members');
    expect(worst(result)).toBe('note');
    expect(result.some((f) => /refused Status/.test(f.summary))).toBe(true);
  });

  it('versions: before 3.4 fails; mixed versions warn; the TTL defect before 3.4.32 / 3.5.14 is a note; fixed versions are ok', () => {
    const version = (v: string[]) => healthyFacts({ members: v.map((version, i) => healthyMember(i, { version })) });
    expect(worst(about(version(['3.3.27', '3.3.27', '3.3.27']), 'versions'))).toBe('fail');
    expect(worst(about(version(['3.4.23', '3.5.30', '3.5.30']), 'versions'))).toBe('warn');
    const defect = about(version(['3.4.23', '3.4.23', '3.4.23']), 'versions');
    expect(defect.map((f) => f.level)).toEqual(['note']);
    expect(defect[0]!.summary).toMatch(/placeholder/);
    expect(worst(about(version(['3.5.13', '3.5.13', '3.5.13']), 'versions'))).toBe('note');
    expect(about(version(['3.5.14', '3.5.14', '3.5.14']), 'versions').map((f) => f.level)).toEqual(['ok']);
    expect(about(version(['3.4.32', '3.4.32', '3.4.32']), 'versions').map((f) => f.level)).toEqual(['ok']);
    expect(worst(about(version(['3.6.1', '3.6.1', '3.6.1']), 'versions'))).toBe('note');
  });

  it('leader: no leader fails, disagreement warns, frequent elections warn', () => {
    expect(worst(about(healthyFacts({ members: [0, 1, 2].map((i) => healthyMember(i, { leaderId: '0' })) }), 'leader'))).toBe('fail');
    expect(worst(about(healthyFacts({ members: [0, 1, 2].map((i) => healthyMember(i, { leaderId: i === 2 ? 'm2' : 'm0' })) }), 'leader'))).toBe('warn');
    const elections = healthyFacts();
    elections.members[1]!.metrics = { quotaBackendBytes: 2048 * MIB, leaderChangesSeen: 40, hasLeader: 1 };
    expect(worst(about(elections, 'leader'))).toBe('warn');
  });

  it('raft: a member trailing the others or its own commits warns', () => {
    expect(worst(about(healthyFacts({ members: [0, 1, 2].map((i) => healthyMember(i, i === 1 ? { raftIndex: 3000, raftAppliedIndex: 3000 } : {})) }), 'raft'))).toBe('warn');
    expect(worst(about(healthyFacts({ members: [0, 1, 2].map((i) => healthyMember(i, i === 1 ? { raftAppliedIndex: 2000 } : {})) }), 'raft'))).toBe('warn');
  });

  it('alarms: NOSPACE fails and says compact, defrag, disarm', () => {
    const [finding] = about(healthyFacts({ alarms: [{ memberId: 'm1', alarm: 'NOSPACE' }] }), 'alarms');
    expect(finding?.level).toBe('fail');
    expect(finding?.fix).toMatch(/compact.*defrag.*alarm disarm/);
  });

  it('quota: 60 % used warns, 80 % fails, a quota under 256 MiB warns, an unknown quota is a note', () => {
    const used = (db: number, quota = 2048 * MIB) =>
      healthyFacts({ members: [0, 1, 2].map((i) => ({ ...healthyMember(i, { dbSizeBytes: db, dbSizeInUseBytes: db }), metrics: { quotaBackendBytes: quota, leaderChangesSeen: 1, hasLeader: 1 } })) });
    expect(worst(about(used(1300 * MIB), 'quota'))).toBe('warn');
    expect(worst(about(used(1700 * MIB), 'quota'))).toBe('fail');
    expect(worst(about(used(1 * MIB, 16 * MIB), 'quota'))).toBe('warn');
    expect(about(used(1 * MIB, 16 * MIB), 'quota')[0]!.summary).toMatch(/small quota/);
    const unknown = healthyFacts({ members: [0, 1, 2].map((i) => ({ ...healthyMember(i), metrics: {} })) });
    expect(worst(about(unknown, 'quota'))).toBe('note');
  });

  it('fragmentation: a db file mostly free pages warns with the defrag command for that member', () => {
    const facts = healthyFacts({ members: [0, 1, 2].map((i) => healthyMember(i, i === 0 ? { dbSizeBytes: 900 * MIB, dbSizeInUseBytes: 100 * MIB } : {})) });
    const [finding] = about(facts, 'fragmentation');
    expect(finding?.level).toBe('warn');
    expect(finding?.fix).toContain(`etcdctl defrag --endpoints=${facts.members[0]!.endpoint}`);
  });

  it('compaction: never compacted past 10 000 revisions warns; a young cluster is a note; a long history warns', () => {
    expect(worst(about(healthyFacts({ compaction: { revision: 12_000, oldestReadable: 1 } }), 'compaction'))).toBe('warn');
    expect(about(healthyFacts({ compaction: { revision: 12_000, oldestReadable: 1 } }), 'compaction')[0]!.fix).toMatch(/--auto-compaction-mode/);
    expect(worst(about(healthyFacts({ compaction: { revision: 800, oldestReadable: 1 } }), 'compaction'))).toBe('note');
    expect(worst(about(healthyFacts({ compaction: { revision: 3_000_000, oldestReadable: 100 } }), 'compaction'))).toBe('warn');
  });

  it('auth: off is a note on loopback and a warning across the network; a root user warns', () => {
    const open = (loopback: boolean) => {
      const facts = healthyFacts();
      facts.access = { probes: facts.access.probes.map((p) => ({ ...p, read: 'allowed', write: 'allowed' })) };
      facts.tls.endpoints = facts.tls.endpoints.map((e) => ({ ...e, loopback }));
      return facts;
    };
    expect(worst(about(open(true), 'auth'))).toBe('note');
    expect(worst(about(open(false), 'auth'))).toBe('warn');
    const root = healthyFacts();
    root.access.readsAuthRecords = true;
    expect(worst(about(root, 'auth'))).toBe('warn');
  });

  it('permissions: no write on the lease prefix fails, none on the event prefix warns, a role reaching beside the prefixes warns', () => {
    const probe = (where: string, change: object) => {
      const facts = healthyFacts();
      facts.access.probes = facts.access.probes.map((p) => (p.where === where ? { ...p, ...change } : p));
      return facts;
    };
    expect(worst(about(probe('lease prefix', { write: 'denied' }), 'permissions'))).toBe('fail');
    expect(worst(about(probe('event prefix', { read: 'denied', write: 'denied' }), 'permissions'))).toBe('warn');
    const wide = about(probe('beside the prefixes', { read: 'allowed', write: 'allowed' }), 'permissions');
    expect(worst(wide)).toBe('warn');
    expect(wide[0]!.summary).toMatch(/beyond the prefixes: read\+write at "mastra\/\.p"/);
  });

  it('tls: plain text across the network warns; a certificate expiring within 30 days warns, an expired one fails', () => {
    const remote = healthyFacts();
    remote.tls.endpoints = remote.tls.endpoints.map((e) => ({ ...e, loopback: false }));
    expect(worst(about(remote, 'tls'))).toBe('warn');
    const expiring = (notAfter: string) => {
      const facts = healthyFacts();
      facts.tls = { endpoints: facts.tls.endpoints.map((e) => ({ ...e, tls: true })), certificates: [{ file: 'client.pem', role: 'client', notAfter, subject: 'CN=app' }] };
      return facts;
    };
    expect(worst(about(expiring('2026-12-20T00:00:00Z'), 'tls'))).toBe('warn');
    expect(worst(about(expiring('2026-11-20T00:00:00Z'), 'tls'))).toBe('fail');
    expect(worst(about(expiring('2027-06-01T00:00:00Z'), 'tls'))).toBe('ok');
  });

  it('keys: keys under the lease prefix without an etcd lease warn (they never expire)', () => {
    const facts = healthyFacts({ usage: { leaseKeys: 5, leaseKeysWithoutLease: 2, eventKeys: 0, etcdLeases: 1 } });
    expect(worst(about(facts, 'keys'))).toBe('warn');
  });
});
