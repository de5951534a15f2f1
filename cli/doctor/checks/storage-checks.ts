import type { ClusterFacts } from '../facts.js';
import type { Finding } from '../finding.js';

const MIB = 1024 * 1024;
/** Below this, one busy hour of events can fill the backend (etcd's default is 2 GiB). */
const SMALL_QUOTA_BYTES = 256 * MIB;
const WARN_USED_SHARE = 0.6;
const FAIL_USED_SHARE = 0.8;
/** Revisions of history etcd may keep before the lack of compaction is worth a warning (EtcdPubSub warns too). */
const UNCOMPACTED_REVISIONS = 10_000;
/** History kept beyond this many revisions makes the db large and every restart slow. */
const RETAINED_REVISIONS = 1_000_000;

export function quotaChecks(facts: ClusterFacts): Finding[] {
  const findings: Finding[] = [];
  for (const member of facts.members) {
    const status = member.status;
    if (status === undefined) continue;
    const quota = member.metrics?.quotaBackendBytes;
    if (quota === undefined || quota <= 0) {
      findings.push({ check: 'quota', level: 'note', summary: `${member.endpoint}: db ${mib(status.dbSizeBytes)}; quota unknown (its /metrics page could not be read)` });
      continue;
    }
    const used = status.dbSizeBytes / quota;
    const line = `${member.endpoint}: db ${mib(status.dbSizeBytes)} of a ${mib(quota)} quota (${Math.round(used * 100)} %)`;
    const fixRoom = 'Compact and defragment (etcdctl compact, etcdctl defrag one member at a time), or raise --quota-backend-bytes (etcd’s default is 2 GiB, 8 GiB the suggested maximum).';
    if (used >= WARN_USED_SHARE) {
      findings.push({
        check: 'quota',
        level: used >= FAIL_USED_SHARE ? 'fail' : 'warn',
        summary: line,
        why: 'At the quota etcd raises NOSPACE and refuses every write: leases cannot be renewed and run out, events cannot be published.',
        fix: fixRoom,
      });
    } else if (quota < SMALL_QUOTA_BYTES) {
      findings.push({
        check: 'quota',
        level: 'warn',
        summary: `${line}: a small quota`,
        why: 'Events and their history take room until compaction catches up: a burst can reach a small quota and stop every write.',
        fix: 'Start etcd with --quota-backend-bytes=2147483648 (the default) or more.',
      });
    } else {
      findings.push({ check: 'quota', level: 'ok', summary: line });
    }
  }
  return findings;
}

export function fragmentationChecks(facts: ClusterFacts): Finding[] {
  const findings: Finding[] = [];
  for (const member of facts.members) {
    const status = member.status;
    if (status === undefined) continue;
    const free = status.dbSizeBytes - status.dbSizeInUseBytes;
    const quota = member.metrics?.quotaBackendBytes;
    const worthIt = free >= Math.max(status.dbSizeBytes / 2, quota === undefined ? 64 * MIB : quota / 10);
    if (worthIt) {
      findings.push({
        check: 'fragmentation',
        level: 'warn',
        summary: `${member.endpoint}: ${mib(free)} of its ${mib(status.dbSizeBytes)} db file is free pages`,
        why: 'The quota counts the whole file: free pages bring NOSPACE closer and slow a restart, until a defrag gives them back.',
        fix: `etcdctl defrag --endpoints=${member.endpoint} (one member at a time: it blocks that member while it runs)`,
      });
    }
  }
  if (findings.length === 0 && facts.members.some((m) => m.status !== undefined)) {
    findings.push({ check: 'fragmentation', level: 'ok', summary: 'no member has enough free pages for a defrag to be worth it' });
  }
  return findings;
}

export function compactionChecks(facts: ClusterFacts): Finding[] {
  const compaction = facts.compaction;
  if (compaction === undefined) {
    const reason = facts.unreadable.compaction;
    return reason === undefined ? [] : [{ check: 'compaction', level: 'note', summary: `could not read the revision history: ${reason}` }];
  }
  const kept = compaction.revision - compaction.oldestReadable;
  const autoCompaction = 'Start every member with --auto-compaction-mode=periodic --auto-compaction-retention=1h (or revision mode with a retention of a few hundred thousand).';
  if (compaction.oldestReadable <= 1) {
    if (compaction.revision > UNCOMPACTED_REVISIONS) {
      return [
        {
          check: 'compaction',
          level: 'warn',
          summary: `the history was never compacted: all ${compaction.revision} revisions are kept`,
          why: 'Every lease renewal and event is a revision; without compaction the db grows until the quota raises NOSPACE, which stops every write.',
          fix: autoCompaction,
        },
      ];
    }
    return [{ check: 'compaction', level: 'note', summary: `not compacted yet (revision ${compaction.revision}): fine for a young cluster, if auto-compaction is on` }];
  }
  if (kept > RETAINED_REVISIONS) {
    return [
      {
        check: 'compaction',
        level: 'warn',
        summary: `compacted up to revision ${compaction.oldestReadable}, ${kept} revisions behind the current ${compaction.revision}`,
        why: 'A long history makes the db large (closer to NOSPACE) and a restarting member slow to come back.',
        fix: autoCompaction,
      },
    ];
  }
  return [{ check: 'compaction', level: 'ok', summary: `compacted up to revision ${compaction.oldestReadable}; ${kept} revisions kept behind the current ${compaction.revision}` }];
}

function mib(bytes: number): string {
  if (bytes < MIB) return `${Math.round(bytes / 1024)} KiB`;
  return bytes >= 10 * MIB ? `${Math.round(bytes / MIB)} MiB` : `${(bytes / MIB).toFixed(1)} MiB`;
}
