import type { ClusterFacts, MemberStatus } from '../facts.js';
import type { Finding } from '../finding.js';

/** The etcd versions this package's CI runs every suite on. */
export const TESTED_VERSIONS = ['3.4.23', '3.5.30'] as const;
/** Raft entries a member may trail the others (or its own commit index) by before it is worth a look. */
const RAFT_LAG_ENTRIES = 1000;
/** Leader changes a member has seen since it started before elections look like a problem rather than restarts. */
const FREQUENT_ELECTIONS = 5;

export function memberChecks(facts: ClusterFacts): Finding[] {
  const findings: Finding[] = [];
  const down = facts.members.filter((m) => m.status === undefined && m.refused !== true);
  const refused = facts.members.filter((m) => m.refused === true);
  const answering = facts.members.length - down.length;
  if (down.length === 0) {
    findings.push({ check: 'members', level: 'ok', summary: `${answering} of ${facts.members.length} endpoints answer` });
  } else {
    findings.push({
      check: 'members',
      level: answering === 0 ? 'fail' : 'warn',
      summary: `${down.length} of ${facts.members.length} endpoints do not answer: ${down.map((m) => `${m.endpoint} (${m.error ?? 'no answer'})`).join('; ')}`,
      why: 'Calls go to the members that answer; with fewer than a majority of the cluster answering, no lease can be taken or renewed and held leases run out.',
      fix: 'Check the member process and the network path to it (etcdctl endpoint health --endpoints=<endpoint>).',
    });
  }
  if (refused.length > 0) {
    findings.push({
      check: 'members',
      level: 'note',
      summary: `${refused.map((m) => m.endpoint).join(', ')} refused Status to this user: versions, db size and raft progress of those members are not checked`,
      fix: 'Run the doctor once with a root user (--user root) to check them.',
    });
  }
  if (facts.memberList !== undefined) {
    const given = new Set(facts.endpoints.map(normalise));
    const unnamed = facts.memberList.filter((m) => m.clientUrls.length > 0 && !m.clientUrls.some((url) => given.has(normalise(url))));
    if (unnamed.length > 0) {
      findings.push({
        check: 'members',
        level: 'warn',
        summary: `${unnamed.length} of ${facts.memberList.length} cluster members are not among the endpoints given: ${unnamed.map((m) => m.name || m.id).join(', ')}`,
        why: 'The provider sends calls only to the endpoints it is given: when those members fail, it cannot move to the others.',
        fix: `List every member in ETCD_ENDPOINTS (or the hosts option): ${unnamed.flatMap((m) => m.clientUrls).join(',')}`,
      });
    }
    const learners = facts.memberList.filter((m) => m.isLearner);
    if (learners.length > 0) {
      findings.push({ check: 'members', level: 'note', summary: `${learners.length} learner member(s): ${learners.map((m) => m.name || m.id).join(', ')} (they serve no linearizable reads or writes)` });
    }
  }
  return findings;
}

export function versionChecks(facts: ClusterFacts): Finding[] {
  const statuses = facts.members.flatMap((m) => (m.status === undefined ? [] : [{ endpoint: m.endpoint, status: m.status }]));
  if (statuses.length === 0) return [];
  const versions = [...new Set(statuses.map((s) => s.status.version))].sort();
  const findings: Finding[] = [];
  const parsed = versions.map((v) => ({ text: v, parts: v.split('.').map(Number) }));
  const old = parsed.filter(({ parts: [major = 0, minor = 0] }) => major < 3 || (major === 3 && minor < 4));
  if (old.length > 0) {
    findings.push({
      check: 'versions',
      level: 'fail',
      summary: `etcd ${old.map((v) => v.text).join(', ')} is older than 3.4, which this package needs`,
      why: 'The provider relies on 3.4 behaviour (linearizable lease TTL reads, the Txn shapes it sends, watch progress requests).',
      fix: `Upgrade the cluster to etcd 3.5 (tested: ${TESTED_VERSIONS.join(', ')}).`,
    });
  }
  if (versions.length > 1) {
    findings.push({
      check: 'versions',
      level: 'warn',
      summary: `members run different versions: ${statuses.map((s) => `${s.endpoint} ${s.status.version}`).join(', ')}`,
      why: 'A mixed cluster is an upgrade in progress; finish it, since behaviour during an election depends on which member leads.',
      fix: 'Finish the rolling upgrade (one member at a time, checking health in between).',
    });
  }
  const ttlDefect = parsed.filter(({ parts: [major, minor, patch = 0] }) => major === 3 && ((minor === 4 && patch < 32) || (minor === 5 && patch < 14)));
  if (ttlDefect.length > 0) {
    findings.push({
      check: 'versions',
      level: 'note',
      summary: `etcd ${ttlDefect.map((v) => v.text).join(', ')}: a just-elected leader answers lease TTL reads with a placeholder (about 292 years) until it has caught up`,
      why: 'The provider recognises that answer and asks again, so leases stay right; tools reading TTLs directly (etcdctl lease timetolive) may show it.',
      fix: 'Upgrade to etcd 3.4.32 / 3.5.14 or later when convenient.',
    });
  }
  const untested = parsed.filter(({ parts: [major, minor] }) => !(major === 3 && (minor === 4 || minor === 5)));
  if (untested.length > 0 && old.length === 0) {
    findings.push({ check: 'versions', level: 'note', summary: `etcd ${untested.map((v) => v.text).join(', ')} is outside the lines this package is tested on (${TESTED_VERSIONS.join(', ')})` });
  }
  if (findings.length === 0) findings.push({ check: 'versions', level: 'ok', summary: `etcd ${versions.join(', ')} on every member (tested: ${TESTED_VERSIONS.join(', ')})` });
  return findings;
}

export function leaderChecks(facts: ClusterFacts): Finding[] {
  const statuses = facts.members.flatMap((m) => (m.status === undefined ? [] : [{ member: m, status: m.status }]));
  if (statuses.length === 0) return [];
  const findings: Finding[] = [];
  const leaders = new Set(statuses.map((s) => s.status.leaderId).filter((id) => id !== '0'));
  const leaderless = statuses.filter((s) => s.status.leaderId === '0' || s.member.metrics?.hasLeader === 0);
  if (leaders.size === 0 || leaderless.length > 0) {
    findings.push({
      check: 'leader',
      level: 'fail',
      summary: leaders.size === 0 ? 'no member knows a leader' : `${leaderless.map((s) => s.member.endpoint).join(', ')} know(s) no leader`,
      why: 'Without a leader nothing commits: acquires and renewals fail until one is elected, and held leases run out.',
      fix: 'Check that a majority of members run and reach each other on their peer URLs.',
    });
  } else if (leaders.size > 1) {
    findings.push({ check: 'leader', level: 'warn', summary: `members name different leaders (${[...leaders].join(', ')}): an election is under way or a member is cut off` });
  } else {
    const leaderId = [...leaders][0]!;
    const term = Math.max(...statuses.map((s) => s.status.raftTerm));
    const changes = statuses.map((s) => s.member.metrics?.leaderChangesSeen).filter((n): n is number => n !== undefined);
    const mostChanges = changes.length === 0 ? undefined : Math.max(...changes);
    const leaderEndpoint = statuses.find((s) => s.status.memberId === leaderId)?.member.endpoint;
    const counted = mostChanges === undefined ? '' : `, ${mostChanges} leader change(s) seen since a member started`;
    if (mostChanges !== undefined && mostChanges > FREQUENT_ELECTIONS) {
      findings.push({
        check: 'leader',
        level: 'warn',
        summary: `leader ${leaderId}${leaderEndpoint === undefined ? '' : ` (${leaderEndpoint})`}, raft term ${term}${counted}`,
        why: 'Each election stops commits for about an election timeout: acquires and renewals wait, and a run of them can cost leases.',
        fix: 'Look at disk fsync latency (etcd_disk_wal_fsync_duration_seconds) and peer round trips; raise --heartbeat-interval/--election-timeout on slow networks.',
      });
    } else {
      findings.push({ check: 'leader', level: 'ok', summary: `leader ${leaderId}${leaderEndpoint === undefined ? '' : ` (${leaderEndpoint})`}, raft term ${term}${counted}` });
    }
  }
  return findings;
}

export function raftChecks(facts: ClusterFacts): Finding[] {
  const statuses = facts.members.flatMap((m) => (m.status === undefined ? [] : [{ endpoint: m.endpoint, status: m.status as MemberStatus }]));
  if (statuses.length === 0) return [];
  const top = Math.max(...statuses.map((s) => s.status.raftIndex));
  const behind = statuses.filter((s) => top - s.status.raftIndex > RAFT_LAG_ENTRIES || s.status.raftIndex - s.status.raftAppliedIndex > RAFT_LAG_ENTRIES);
  const errors = statuses.filter((s) => s.status.errors.length > 0);
  const findings: Finding[] = [];
  if (behind.length > 0) {
    findings.push({
      check: 'raft',
      level: 'warn',
      summary: `${behind.map((s) => `${s.endpoint} trails by ${top - s.status.raftAppliedIndex} entries`).join('; ')}`,
      why: 'A member that trails cannot serve a linearizable read until it catches up; reads sent to it wait.',
      fix: 'Check that member’s disk and network; a member far behind is sent a snapshot, which can take a while on a large db.',
    });
  }
  if (errors.length > 0) {
    findings.push({ check: 'raft', level: 'warn', summary: `members report errors: ${errors.map((s) => `${s.endpoint}: ${s.status.errors.join(', ')}`).join('; ')}` });
  }
  if (findings.length === 0) findings.push({ check: 'raft', level: 'ok', summary: `raft index ${top}; every member within ${RAFT_LAG_ENTRIES} entries, applied up to date` });
  return findings;
}

export function alarmChecks(facts: ClusterFacts): Finding[] {
  if (facts.alarms === undefined) return [];
  if (facts.alarms.length === 0) return [{ check: 'alarms', level: 'ok', summary: 'no alarm raised' }];
  const kinds = [...new Set(facts.alarms.map((a) => a.alarm))];
  return [
    {
      check: 'alarms',
      level: 'fail',
      summary: `alarm(s) raised: ${facts.alarms.map((a) => `${a.alarm} on member ${a.memberId}`).join(', ')}`,
      why: kinds.includes('NOSPACE')
        ? 'With NOSPACE etcd refuses every write: no lease can be taken or renewed (held ones run out), no event published.'
        : 'A raised alarm stops the cluster from taking writes until an operator clears it.',
      fix: kinds.includes('NOSPACE')
        ? 'Compact (etcdctl compact <revision>), defragment each member (etcdctl defrag --endpoints=<one>), then etcdctl alarm disarm; raise --quota-backend-bytes if the data needs the room.'
        : 'Investigate the member named (etcd logs), then etcdctl alarm disarm.',
    },
  ];
}

function normalise(url: string): string {
  return url.replace(/^[a-z]+:\/\//, '').replace(/\/$/, '').replace(/^localhost:/, '127.0.0.1:');
}
