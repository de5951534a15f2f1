import { count } from './count-words.js';

/**
 * The demo's last line, parsed by people and tests alike: keep the format exactly (a noun is singular after 1).
 * `faults` counts the faults injected (a leader killed, a leader paused); their repairs (restart, resume) and the
 * elections that follow are listed in the live view and the report but are not faults.
 */
export function summaryLine(figures: { ops: number; faults: number; overlaps: number; longestStallMs: number }): string {
  return `summary: ${count(figures.ops, 'op')}, ${count(figures.faults, 'fault')} injected, ${count(figures.overlaps, 'overlap')}, longest stall ${(figures.longestStallMs / 1000).toFixed(1)} s`;
}

/** The one pattern of that line (groups: ops, faults, overlaps, longest stall in seconds), for whoever reads it back. */
export const SUMMARY_PATTERN = /^summary: (\d+) ops?, (\d+) faults? injected, (\d+) overlaps?, longest stall (\d+\.\d) s$/;
