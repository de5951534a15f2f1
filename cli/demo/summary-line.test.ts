import { describe, expect, it } from 'vitest';
import { SUMMARY_PATTERN, summaryLine } from './summary-line.js';

describe('summaryLine', () => {
  it('has exactly the documented shape, stall in seconds with one decimal', () => {
    const line = summaryLine({ ops: 1234, faults: 2, overlaps: 0, longestStallMs: 1349.6 });
    expect(line).toBe('summary: 1234 ops, 2 faults injected, 0 overlaps, longest stall 1.3 s');
    expect(line).toMatch(SUMMARY_PATTERN);
  });

  it('says 1 fault, not 1 faults, and still matches the pattern', () => {
    const line = summaryLine({ ops: 1, faults: 1, overlaps: 1, longestStallMs: 0 });
    expect(line).toBe('summary: 1 op, 1 fault injected, 1 overlap, longest stall 0.0 s');
    expect(line).toMatch(SUMMARY_PATTERN);
  });
});
