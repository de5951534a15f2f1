/** The demo's last line, parsed by people and tests alike: keep the format exactly. */
export function summaryLine(figures: { ops: number; faults: number; overlaps: number; longestStallMs: number }): string {
  return `summary: ${figures.ops} ops, ${figures.faults} faults, ${figures.overlaps} overlaps, longest stall ${(figures.longestStallMs / 1000).toFixed(1)} s`;
}

export const SUMMARY_PATTERN = /^summary: (\d+) ops, (\d+) faults, (\d+) overlaps, longest stall (\d+\.\d) s$/;
