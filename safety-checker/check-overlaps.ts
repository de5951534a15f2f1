import { deriveBeliefWindows } from './belief-windows.js';
import type { BeliefWindow, FencingViolation, History, OverlapViolation, RecordedOp, TokenedGrant } from './types.js';

/**
 * The safety property (docs/design.md#safety-property): for any key, belief windows of different owners
 * never overlap. Windows are half-open, so a handover where the new owner's window starts
 * exactly where the old one ended is not a violation.
 */
export function checkOverlaps(history: History): OverlapViolation[] {
  return findOverlaps(deriveBeliefWindows(history));
}

/** Same check on windows already derived (e.g. to print them alongside the verdict). */
export function findOverlaps(windows: readonly BeliefWindow[]): OverlapViolation[] {
  const violations: OverlapViolation[] = [];
  for (const [key, ofKey] of groupByKey(windows)) {
    const sorted = [...ofKey].sort((a, b) => a.start - b.start || a.end - b.end);
    sorted.forEach((first, i) => {
      // Sorted by start, so once a window starts at or after `first` ends, none later overlaps it.
      for (let j = i + 1; j < sorted.length; j++) {
        const second = sorted[j] as BeliefWindow;
        if (second.start >= first.end) break;
        if (second.owner === first.owner || !(first.start < second.end)) continue;
        violations.push({
          key,
          first,
          second,
          overlapMs: Math.min(first.end, second.end) - Math.max(first.start, second.start),
        });
      }
    });
  }
  return violations;
}

/**
 * Fencing tokens never go backwards (docs/design.md#fencing-tokens). Per key:
 * - every token reported to an owner is strictly greater than every token reported in
 *   belief windows of OTHER owners that started earlier (`handover-not-increasing`);
 * - an owner's token is never lower than one it already received in a call that had
 *   returned strictly before this call was sent (`refresh-decreased`). Keeping the same token is
 *   fine. Concurrent calls of one owner are not compared: their order at the server is
 *   unknown, so either token may rightly be the newer.
 * Grants without a token are ignored, as are grants that opened no belief window (the
 * holder could not act on them, so no resource ever saw their token from it).
 * At most one handover violation is reported per window, against the largest earlier token.
 */
export function checkFencingMonotonic(history: History): FencingViolation[] {
  const violations: FencingViolation[] = [];
  for (const [key, windows] of groupByKey(deriveBeliefWindows(history))) {
    violations.push(...handoverViolations(key, windows), ...refreshViolations(key, windows));
  }
  return violations;
}

interface Parsed extends TokenedGrant {
  readonly value: bigint;
}

function tokensOf(window: BeliefWindow): Parsed[] {
  return window.grants.flatMap((op) => parsed(window.owner, op));
}

function parsed(owner: string, op: RecordedOp): Parsed[] {
  // validateHistory (run by deriveBeliefWindows) guarantees a decimal string.
  return op.fencingToken === undefined ? [] : [{ owner, token: op.fencingToken, op, value: BigInt(op.fencingToken) }];
}

function handoverViolations(key: string, windows: readonly BeliefWindow[]): FencingViolation[] {
  const violations: FencingViolation[] = [];
  const maxByOwner = new Map<string, Parsed>();
  for (const window of windows) {
    const tokens = tokensOf(window);
    let before: Parsed | undefined;
    for (const [owner, max] of maxByOwner) {
      if (owner !== window.owner && (before === undefined || max.value > before.value)) before = max;
    }
    const offending = before === undefined ? undefined : tokens.find((t) => t.value <= (before as Parsed).value);
    if (before !== undefined && offending !== undefined) {
      violations.push({ key, kind: 'handover-not-increasing', earlier: strip(before), later: strip(offending) });
    }
    for (const token of tokens) {
      const max = maxByOwner.get(window.owner);
      if (max === undefined || token.value > max.value) maxByOwner.set(window.owner, token);
    }
  }
  return violations;
}

function refreshViolations(key: string, windows: readonly BeliefWindow[]): FencingViolation[] {
  const violations: FencingViolation[] = [];
  const byOwner = new Map<string, Parsed[]>();
  for (const window of windows) {
    const list = byOwner.get(window.owner) ?? [];
    list.push(...tokensOf(window));
    byOwner.set(window.owner, list);
  }
  for (const tokens of byOwner.values()) {
    const byReturn = [...tokens].sort((a, b) => a.op.returnedAt - b.op.returnedAt);
    // prefixMax[i]: the largest token among byReturn[0..i].
    const prefixMax: Parsed[] = [];
    byReturn.forEach((t, i) => {
      const previous = prefixMax[i - 1];
      prefixMax.push(previous !== undefined && previous.value >= t.value ? previous : t);
    });
    for (const later of tokens) {
      const earlier = prefixMax[lastReturnedBefore(byReturn, later.op.sentAt)];
      if (earlier !== undefined && later.value < earlier.value) {
        violations.push({ key, kind: 'refresh-decreased', earlier: strip(earlier), later: strip(later) });
      }
    }
  }
  return violations;
}

/**
 * Index of the last entry returned strictly before `time` (-1 if none); `sorted` by returnedAt.
 * Strictly: a call that returned at the same clock reading another was sent is not known
 * to have been applied first.
 */
function lastReturnedBefore(sorted: readonly Parsed[], time: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as Parsed).op.returnedAt < time) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function strip({ owner, token, op }: Parsed): TokenedGrant {
  return { owner, token, op };
}

function groupByKey(windows: readonly BeliefWindow[]): Map<string, BeliefWindow[]> {
  const byKey = new Map<string, BeliefWindow[]>();
  for (const window of windows) {
    const list = byKey.get(window.key) ?? [];
    list.push(window);
    byKey.set(window.key, list);
  }
  return byKey;
}
