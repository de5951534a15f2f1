import type { History, RecordedOp } from './types.js';

/**
 * A recorded history is malformed. Raised before any verdict is computed, because a
 * verdict on a garbled history (a return before its send, a transfer with no target)
 * would silently pass or fail for the wrong reason.
 *
 * Kept apart from the provider's `LeaseError` family: this is test tooling, never
 * thrown by the provider itself.
 */
export class InvalidHistoryError extends TypeError {
  readonly code = 'EHISTORY_INVALID' as const;

  constructor(
    /** Position of the offending entry in the history. */
    readonly index: number,
    /** The offending field of that entry. */
    readonly field: keyof RecordedOp,
    message: string,
  ) {
    super(`history[${index}].${field}: ${message}`);
    this.name = 'InvalidHistoryError';
  }
}

const OPS = new Set<string>(['acquire', 'renew', 'release', 'transfer']);
const OUTCOMES = new Set<string>(['ok', 'lost', 'error']);
// Decimal only: tokens are compared as BigInt, and BigInt() would also accept "0x1f" or " 7 ".
const DECIMAL = /^[0-9]+$/;

/** Throws `InvalidHistoryError` naming the first malformed entry. */
export function validateHistory(history: History): void {
  history.forEach((entry, index) => validateEntry(entry, index));
}

function validateEntry(entry: RecordedOp, index: number): void {
  for (const field of ['client', 'key', 'owner'] as const) {
    if (typeof entry[field] !== 'string') {
      throw new InvalidHistoryError(index, field, `must be a string, got ${typeof entry[field]}`);
    }
  }
  if (!OPS.has(entry.op)) {
    throw new InvalidHistoryError(index, 'op', `unknown operation ${JSON.stringify(entry.op)}`);
  }
  if (!OUTCOMES.has(entry.outcome)) {
    throw new InvalidHistoryError(index, 'outcome', `unknown outcome ${JSON.stringify(entry.outcome)}`);
  }
  for (const field of ['ttlMs', 'sentAt', 'returnedAt'] as const) {
    if (typeof entry[field] !== 'number' || !Number.isFinite(entry[field])) {
      throw new InvalidHistoryError(index, field, `must be a finite number, got ${String(entry[field])}`);
    }
  }
  if (entry.ttlMs < 0) {
    throw new InvalidHistoryError(index, 'ttlMs', `must not be negative, got ${entry.ttlMs}`);
  }
  if (entry.returnedAt < entry.sentAt) {
    throw new InvalidHistoryError(
      index,
      'returnedAt',
      `${entry.returnedAt} is before sentAt ${entry.sentAt}; were two clocks mixed?`,
    );
  }
  if (entry.op === 'transfer' && typeof entry.toOwner !== 'string') {
    throw new InvalidHistoryError(index, 'toOwner', 'a transfer must name the owner it hands the lease to');
  }
  if (entry.fencingToken !== undefined && (typeof entry.fencingToken !== 'string' || !DECIMAL.test(entry.fencingToken))) {
    throw new InvalidHistoryError(
      index,
      'fencingToken',
      `must be a decimal string, got ${JSON.stringify(entry.fencingToken)}`,
    );
  }
}
