import type { History, RecordedOp } from './types.js';
import { validateHistory } from './validate.js';

/**
 * A lease lost before its time: an owner's call answered `lost` (an acquire not acquired, a renew or transfer
 * false) while a grant it had already heard of still promised it the key.
 */
export interface EarlyLoss {
  readonly key: string;
  readonly owner: string;
  /** The call that answered `lost`. */
  readonly lost: RecordedOp;
  /** The grant whose promise it broke: it returned before `lost` was sent. */
  readonly grant: RecordedOp;
  /** How long before the promise ended (grant sent + ttl) the loss was answered. */
  readonly earlyByMs: number;
}

/**
 * No lease lost while its renewals were answered in time (docs/design.md#safety-property asks the key last a
 * grant's ttl from its send time). A grant — an acquire, renew or transfer-in answered `ok` — that returned before a
 * call of the same owner was sent was applied before that call; etcd keeps the key at least until the grant's send
 * time + ttl. So a `lost` answer that returned before then says the key was gone while the owner was still promised
 * it: an early expiry (a lease shorter than asked, a clock step taken for elapsed time) or a key deleted under it.
 *
 * The owner's own give-ups excuse it: a release or a transfer away whose flight could fall between the grant and the
 * loss (sent before the loss returned, returned after the grant was sent) may have ended the tenure itself. Errors
 * never count either way. The overlap check catches a key taken by another owner while promised; this one catches
 * the loss even when nobody took the key — a holder told "lost" ends its work early. Assumes, as the belief windows
 * do, one ttl per owner and key.
 */
export function checkEarlyLoss(history: History): EarlyLoss[] {
  validateHistory(history);
  const byOwner = new Map<string, RecordedOp[]>();
  const add = (owner: string, op: RecordedOp) => {
    const id = `${op.key}\u0000${owner}`;
    const ops = byOwner.get(id);
    if (ops === undefined) byOwner.set(id, [op]);
    else ops.push(op);
  };
  for (const op of history) {
    add(op.owner, op);
    if (op.op === 'transfer' && op.outcome === 'ok') add(op.toOwner!, op);
  }
  const losses: EarlyLoss[] = [];
  for (const [id, ops] of byOwner) {
    const owner = id.slice(id.indexOf('\u0000') + 1);
    const grants = ops.filter((op) => op.outcome === 'ok' && (op.op === 'transfer' ? op.toOwner === owner : op.op !== 'release'));
    const giveUps = ops.filter((op) => op.op === 'release' || (op.op === 'transfer' && op.owner === owner));
    for (const lost of ops) {
      if (lost.outcome !== 'lost' || lost.owner !== owner) continue;
      let broken: RecordedOp | undefined;
      for (const grant of grants) {
        if (grant.returnedAt >= lost.sentAt) continue;
        if (giveUps.some((g) => g !== lost && g.sentAt < lost.returnedAt && g.returnedAt > grant.sentAt)) continue;
        if (broken === undefined || promise(grant) > promise(broken)) broken = grant;
      }
      if (broken !== undefined && lost.returnedAt < promise(broken)) {
        losses.push({ key: lost.key, owner, lost, grant: broken, earlyByMs: promise(broken) - lost.returnedAt });
      }
    }
  }
  return losses.sort((a, b) => a.lost.returnedAt - b.lost.returnedAt);
}

const promise = (grant: RecordedOp) => grant.sentAt + grant.ttlMs;
