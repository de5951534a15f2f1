/**
 * Terse builders for hand-written histories in the unit tests of this folder.
 * Defaults: key "k", ttlMs 100, outcome "ok", client = owner.
 */
import type { RecordedOp } from './types.js';

export const TTL = 100;

type Extra = Partial<Omit<RecordedOp, 'op' | 'owner' | 'sentAt' | 'returnedAt'>>;

function recorded(op: RecordedOp['op'], owner: string, sentAt: number, returnedAt: number, extra: Extra): RecordedOp {
  return { client: owner, key: 'k', owner, op, ttlMs: TTL, sentAt, returnedAt, outcome: 'ok', ...extra };
}

export const acquire = (owner: string, sentAt: number, returnedAt: number, extra: Extra = {}): RecordedOp =>
  recorded('acquire', owner, sentAt, returnedAt, extra);

export const renew = (owner: string, sentAt: number, returnedAt: number, extra: Extra = {}): RecordedOp =>
  recorded('renew', owner, sentAt, returnedAt, extra);

export const release = (owner: string, sentAt: number, returnedAt: number, extra: Extra = {}): RecordedOp =>
  recorded('release', owner, sentAt, returnedAt, extra);

export const transfer = (
  from: string,
  to: string,
  sentAt: number,
  returnedAt: number,
  extra: Extra = {},
): RecordedOp => recorded('transfer', from, sentAt, returnedAt, { toOwner: to, ...extra });

/** [start, end, owner] triples: compact expectations for derived windows. */
export function spans(windows: readonly { start: number; end: number; owner: string }[]): [number, number, string][] {
  return windows.map((w) => [w.start, w.end, w.owner]);
}
