import { expect } from 'vitest';
import { SUMMARY_PATTERN } from '../../../cli/demo/summary-line.js';

export interface SummaryFigures {
  ops: number;
  faults: number;
  overlaps: number;
}

/** The figures of the demo's summary line; fails the test, quoting the line, when it has another shape. */
export function summaryFigures(line: string): SummaryFigures {
  const match = SUMMARY_PATTERN.exec(line);
  expect(match, `summary line: ${JSON.stringify(line)}`).not.toBeNull();
  const [ops, faults, overlaps] = match!.slice(1, 4).map(Number) as [number, number, number];
  return { ops, faults, overlaps };
}
