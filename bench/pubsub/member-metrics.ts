/**
 * Reads a member's own Prometheus page (`<client URL>/metrics`, served by etcd on its client port) for the few
 * gauges the pubsub soak and benchmark track. Asked member by member, not through a client, so each member's
 * backend is seen as it is (members compact and free pages on their own).
 */

/** Gauges read from one member at one moment; undefined when the member did not report it. */
export interface MemberSample {
  /** etcd_mvcc_db_total_size_in_use_in_bytes: pages holding data (what compaction frees). */
  dbInUseBytes: number | undefined;
  /** etcd_mvcc_db_total_size_in_bytes: the file, freed pages included (only defragmentation shrinks it). */
  dbFileBytes: number | undefined;
  /** etcd_debugging_mvcc_keys_total: live keys. */
  keys: number | undefined;
  /** etcd_debugging_mvcc_compact_revision: the revision etcd last compacted to (0: never). */
  compactRevision: number | undefined;
}

const GAUGES = {
  dbInUseBytes: 'etcd_mvcc_db_total_size_in_use_in_bytes',
  dbFileBytes: 'etcd_mvcc_db_total_size_in_bytes',
  keys: 'etcd_debugging_mvcc_keys_total',
  compactRevision: 'etcd_debugging_mvcc_compact_revision',
} as const;

/** The gauges above out of a Prometheus text page (unlabelled samples only; comments skipped). */
export function parseMemberSample(text: string): MemberSample {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [name, value] = line.trim().split(/\s+/);
    if (name !== undefined && value !== undefined) values.set(name, Number(value));
  }
  return {
    dbInUseBytes: values.get(GAUGES.dbInUseBytes),
    dbFileBytes: values.get(GAUGES.dbFileBytes),
    keys: values.get(GAUGES.keys),
    compactRevision: values.get(GAUGES.compactRevision),
  };
}

/** One member's gauges, or undefined when it does not answer within 5 s (the soak records the gap, it does not stop). */
export async function readMember(endpoint: string): Promise<MemberSample | undefined> {
  try {
    const res = await fetch(`${endpoint}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return undefined;
    return parseMemberSample(await res.text());
  } catch {
    return undefined;
  }
}
