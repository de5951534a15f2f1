import { deriveBeliefWindows } from './belief-windows.js';
import type { History, RecordedOp } from './types.js';

/** An interval during which the network or the cluster was faulted. */
export interface FaultInterval {
  readonly start: number;
  readonly end: number;
}

/**
 * The owners the history allows to hold `key` in etcd once every fault has healed and every call has
 * returned (docs/design.md, "After faults heal"): the owner of the key's last belief window, or an owner
 * whose write may have landed without its caller knowing —
 * - a call that threw (it may have committed);
 * - an acquire or transfer in flight during a fault: an attempt held in a cut or slow link can reach etcd
 *   after the caller's retry answered (`lost`), and take a key that had meanwhile become free;
 * - an acquire or transfer sent after the last window began: the same, without a fault to blame, is a
 *   retry whose first attempt committed after all.
 * A free key is always allowed. Anyone else holding it is a write that came from nowhere.
 */
export function allowedHolders(history: History, key: string, faults: readonly FaultInterval[]): Set<string> {
  const windows = deriveBeliefWindows(history).filter((w) => w.key === key);
  const last = windows.reduce<(typeof windows)[number] | undefined>((a, w) => (a === undefined || w.start >= a.start ? w : a), undefined);
  const during = (op: RecordedOp) => faults.some((f) => op.returnedAt >= f.start && op.sentAt <= f.end);
  const mayHaveLanded = (op: RecordedOp) =>
    op.outcome === 'error' || ((op.op === 'acquire' || op.op === 'transfer') && (during(op) || (last !== undefined && op.sentAt >= last.start)));
  const allowed = new Set<string>();
  if (last !== undefined) allowed.add(last.owner);
  for (const op of history) if (op.key === key && mayHaveLanded(op)) allowed.add(op.toOwner ?? op.owner);
  return allowed;
}
