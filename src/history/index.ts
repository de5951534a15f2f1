// Checkers for recorded lease histories (chaos tests, demos). Pure: no cluster, no I/O.
export { deriveBeliefWindows } from './belief-windows.js';
export { checkFencingMonotonic, checkOverlaps, findOverlaps } from './check-overlaps.js';
export { longestStall, summarize } from './stalls.js';
export { InvalidHistoryError, isInvalidHistoryError, validateHistory } from './validate.js';
export type {
  BeliefEnd,
  BeliefWindow,
  FencingViolation,
  History,
  HistorySummary,
  LeaseOpKind,
  OpOutcome,
  OverlapViolation,
  RecordedOp,
  Stall,
  TokenedGrant,
} from './types.js';
