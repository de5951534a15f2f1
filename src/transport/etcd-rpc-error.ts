/**
 * etcd's own identity for the errors etcd3 leaves untyped. etcd defines each server error as a fixed
 * (gRPC code, description) pair (`api/v3rpc/rpctypes`), and its Go client recognises them by comparing
 * the whole description (`rpctypes.Error`); etcd3 does the same for the ones it types. Comparing the
 * complete description to etcd's constant is that identity — not a search through free text.
 */
export const ETCD_RPC_ERROR = {
  /**
   * The auth store changed (a user, role or permission was edited) between the member checking the
   * caller's identity and the request being applied. Transient: asking again sees the new revision.
   */
  authOldRevision: 'etcdserver: revision of auth store is old',
  /** Auth is enabled and the request carried neither a token nor a client certificate CN. */
  userEmpty: 'etcdserver: user name is empty',
  /** A lease grant above etcd's MaxLeaseTTL (9 000 000 000 s). */
  leaseTtlTooLarge: 'etcdserver: too large lease TTL',
  /** A transaction with more operations than the server's --max-txn-ops (per branch). */
  tooManyOps: 'etcdserver: too many operations in txn request',
  /** A request larger than the server's --max-request-bytes. */
  requestTooLarge: 'etcdserver: request is too large',
  /**
   * ResourceExhausted, like gRPC's message-size errors, but no size error: the member has too many proposals
   * pending (transient, worth another attempt).
   */
  tooManyRequests: 'etcdserver: too many requests',
  /** ResourceExhausted: the NOSPACE alarm is raised (the backend passed --quota-backend-bytes); writes fail until an operator compacts, defragments and disarms it. */
  noSpace: 'etcdserver: mvcc: database space exceeded',
  /** OutOfRange: a read or watch at a revision older than the last compaction. */
  compacted: 'etcdserver: mvcc: required revision has been compacted',
  /** A LeaseGrant with an id the server already has (lease ids are chosen by the provider; see leases/lease-id.ts). */
  leaseExists: 'etcdserver: lease already exists',
} as const;

/** The description of a gRPC error as etcd3 surfaces it (message `"<code> <NAME>: <description>"`). */
export function etcdDescription(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const details = (error as { details?: unknown }).details;
  if (typeof details === 'string') return details;
  return /^\d+ [A-Z_]+: ([^\n]*)$/.exec(error.message)?.[1];
}
