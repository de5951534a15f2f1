import { describe, expect, it } from 'vitest';
import { deriveBeliefWindows } from './belief-windows.js';
import { checkFencingMonotonic } from './check-overlaps.js';
import { longestStall } from './stalls.js';
import { acquire, transfer } from './history.fixtures.js';
import type { RecordedOp } from './types.js';
import { InvalidHistoryError, validateHistory } from './validate.js';

function rejection(entry: RecordedOp): InvalidHistoryError {
  try {
    validateHistory([acquire('A', 0, 1), entry]);
  } catch (error) {
    if (error instanceof InvalidHistoryError) return error;
    throw error;
  }
  throw new Error('expected validateHistory to throw');
}

describe('validateHistory rejects histories no verdict can be trusted on', () => {
  it('a return before its send (two clocks mixed) is rejected, naming the entry and field', () => {
    const error = rejection(acquire('A', 10, 5));
    expect(error).toMatchObject({ code: 'EHISTORY_INVALID', index: 1, field: 'returnedAt' });
    expect(error.message).toContain('history[1].returnedAt');
  });

  it('a transfer without a receiver is rejected', () => {
    const { toOwner: _omitted, ...noTarget } = transfer('A', 'B', 0, 1);
    expect(rejection(noTarget as RecordedOp).field).toBe('toOwner');
  });

  it('non-decimal fencing tokens are rejected', () => {
    for (const fencingToken of ['0x1f', ' 7', '-3', '1.5', '']) {
      expect(rejection(acquire('A', 0, 1, { fencingToken })).field).toBe('fencingToken');
    }
  });

  it('non-finite times and negative ttls are rejected', () => {
    expect(rejection(acquire('A', 0, Number.NaN)).field).toBe('returnedAt');
    expect(rejection(acquire('A', Number.NEGATIVE_INFINITY, 1)).field).toBe('sentAt');
    expect(rejection(acquire('A', 0, 1, { ttlMs: -1 })).field).toBe('ttlMs');
  });

  it('unknown operations and outcomes are rejected', () => {
    expect(rejection({ ...acquire('A', 0, 1), op: 'steal' as RecordedOp['op'] }).field).toBe('op');
    expect(rejection({ ...acquire('A', 0, 1), outcome: 'maybe' as RecordedOp['outcome'] }).field).toBe('outcome');
  });

  it('every checker validates before judging', () => {
    const bad = [acquire('A', 10, 5)];
    expect(() => deriveBeliefWindows(bad)).toThrow(InvalidHistoryError);
    expect(() => checkFencingMonotonic(bad)).toThrow(InvalidHistoryError);
    expect(() => longestStall(bad)).toThrow(InvalidHistoryError);
  });

  it('a well-formed history passes', () => {
    expect(() => validateHistory([acquire('A', 0, 1, { fencingToken: '42' }), transfer('A', 'B', 2, 2)])).not.toThrow();
  });
});
