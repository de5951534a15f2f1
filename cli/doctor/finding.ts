/**
 * One thing the doctor says about the cluster. `ok` and `note` need nothing done (a note is worth knowing: a defect
 * the provider works around, counts); `warn` should be fixed (it will hurt under load or on a bad day); `fail` must be
 * fixed (leases or events do not work right now, or will not survive the next member loss). The command exits 1 when
 * any finding is `warn` or `fail`.
 */
export type FindingLevel = 'ok' | 'note' | 'warn' | 'fail';

export interface Finding {
  /** The area: members, versions, leader, raft, alarms, quota, fragmentation, compaction, auth, permissions, tls, keys. */
  check: string;
  level: FindingLevel;
  /** What was found, in one sentence. */
  summary: string;
  /** Why it matters to leases or events. */
  why?: string;
  /** The command, flag or setting that fixes it. */
  fix?: string;
}

export function needsFixing(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.level === 'warn' || f.level === 'fail');
}
