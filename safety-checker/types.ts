/**
 * Shapes of a recorded lease history and of the verdicts computed from it.
 *
 * Every time in a history is milliseconds from ONE monotonic clock
 * (`performance.now()` of one process, or of clients on one machine that share
 * an origin). Belief windows compare times across clients, so two clocks would
 * make every verdict meaningless.
 */

/** Which `LeaseProvider` method a recorded operation called. */
export type LeaseOpKind = 'acquire' | 'renew' | 'release' | 'transfer';

/**
 * How a call ended, as the caller saw it.
 * - `ok`: acquire acquired, renew/transfer returned `true`, release returned.
 * - `lost`: acquire not acquired, renew/transfer returned `false`.
 * - `error`: the call threw. Ambiguous: the write may or may not have committed.
 */
export type OpOutcome = 'ok' | 'lost' | 'error';

/** One call to the provider, as a client recorded it. */
export interface RecordedOp {
  /** Which process/test client issued the call (diagnostics only; ownership is `owner`). */
  readonly client: string;
  readonly key: string;
  /** The owner argument; for `transfer`, the `from` owner. */
  readonly owner: string;
  readonly op: LeaseOpKind;
  /** For `transfer` only: the owner the lease is handed to. */
  readonly toOwner?: string;
  readonly ttlMs: number;
  /** Clock reading just before the call was made. */
  readonly sentAt: number;
  /** Clock reading when the call returned or threw. */
  readonly returnedAt: number;
  readonly outcome: OpOutcome;
  /** Fencing token the call reported, as a decimal string (etcd revisions exceed 2^53). */
  readonly fencingToken?: string;
}

export type History = readonly RecordedOp[];

/** Why a belief window closed. */
export type BeliefEnd =
  /** (send time of the last successful refresh) + ttlMs passed. */
  | 'ttl'
  /** The owner sent a release. */
  | 'release'
  /** The owner sent a transfer away from itself. */
  | 'transfer'
  /** An acquire or renew by the owner returned `lost`. */
  | 'lost';

/**
 * An interval during which `owner` was entitled to believe it held `key`:
 * `[start, end)`, never empty.
 */
export interface BeliefWindow {
  readonly key: string;
  readonly owner: string;
  readonly start: number;
  readonly end: number;
  readonly endedBy: BeliefEnd;
  /** The successful acquires/renews/transfers-in that opened or refreshed the window, by return time. */
  readonly grants: readonly RecordedOp[];
}

/** Two owners believed they held the same key at the same time. */
export interface OverlapViolation {
  readonly key: string;
  /** The window that started first. */
  readonly first: BeliefWindow;
  readonly second: BeliefWindow;
  /** Length of the shared interval. */
  readonly overlapMs: number;
}

/** A fencing token together with the grant that reported it. */
export interface TokenedGrant {
  readonly owner: string;
  /** Decimal string, as recorded. */
  readonly token: string;
  readonly op: RecordedOp;
}

export interface FencingViolation {
  readonly key: string;
  /**
   * - `handover-not-increasing`: a new owner's token is not strictly greater than a token
   *   reported to an earlier owner of the key;
   * - `refresh-decreased`: an owner's token is lower than one it received in an earlier,
   *   already-returned call.
   */
  readonly kind: 'handover-not-increasing' | 'refresh-decreased';
  /** The earlier token the later one failed to exceed (the largest such). */
  readonly earlier: TokenedGrant;
  readonly later: TokenedGrant;
}

/** An interval `[start, end)` in which no operation was answered (`ok` or `lost`). */
export interface Stall {
  readonly start: number;
  readonly end: number;
  readonly durationMs: number;
}

export interface HistorySummary {
  /** Number of recorded operations. */
  readonly ops: number;
  /** Operations whose outcome is `error`. */
  readonly errors: number;
  /** Pairs of overlapping belief windows of different owners. */
  readonly overlaps: number;
  /** Longest interval, over the whole history, in which no operation was answered (`ok` or `lost`). */
  readonly longestStallMs: number;
}
