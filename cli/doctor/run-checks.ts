import { accessChecks, keyChecks, tlsChecks } from './checks/access-checks.js';
import { alarmChecks, leaderChecks, memberChecks, raftChecks, versionChecks } from './checks/cluster-checks.js';
import { compactionChecks, fragmentationChecks, quotaChecks } from './checks/storage-checks.js';
import type { ClusterFacts } from './facts.js';
import type { Finding } from './finding.js';

/** Every check, in the order the report lists them: the cluster's health, then its storage, then access and keys. */
export function runChecks(facts: ClusterFacts, now: Date = new Date()): Finding[] {
  return [
    ...memberChecks(facts),
    ...versionChecks(facts),
    ...leaderChecks(facts),
    ...raftChecks(facts),
    ...alarmChecks(facts),
    ...quotaChecks(facts),
    ...fragmentationChecks(facts),
    ...compactionChecks(facts),
    ...accessChecks(facts, now),
    ...tlsChecks(facts, now),
    ...keyChecks(facts),
    ...unreadableNotes(facts),
  ];
}

/** Sections a check needs that the cluster would not show this user (alarms need admin rights, for instance). */
function unreadableNotes(facts: ClusterFacts): Finding[] {
  return Object.entries(facts.unreadable)
    .filter(([section]) => section !== 'compaction')
    .map(([section, reason]) => ({ check: section === 'alarms' ? 'alarms' : 'members', level: 'note' as const, summary: `could not read the ${section}: ${reason}` }));
}
