import { keyAbsent, nested, put, someKeyIn, type TxnOutcome, type TxnRequest } from '../../operations/etcd-txn.js';
import { prefixEnd } from '../keys/event-keys.js';

/**
 * One publish batch of one topic: `If (CREATE(k1) = 0 AND … AND CREATE(kn) = 0) Then put(k1 … kn, lease)`, else
 * nothing.
 *
 * Idempotent by construction: the batch is all-or-nothing and its keys are new (a random publisher id and a
 * sequence), so after an ambiguous failure (a timeout; the write may have committed) the resend either writes all of
 * them or finds them all written and takes the empty else branch — the revision does not move and nothing is
 * written twice. Both answers mean the events are in etcd.
 *
 * Every event of the batch gets the transaction's revision; watchers receive them in op order, which is key order,
 * which is publish order (keys carry a fixed-width sequence).
 */
export function publishBatchTxn(events: ReadonlyArray<{ key: Buffer; value: Buffer }>, lease: string, backlog?: BacklogChoice): TxnRequest {
  const puts = (on: string) => events.map((e) => put(e.key, e.value, on));
  return {
    compare: events.map((e) => keyAbsent(e.key)),
    success: backlog ? [nested({ compare: [someKeyIn(backlog.prefix, prefixEnd(backlog.prefix))], success: puts(backlog.lease), failure: puts(lease) })] : puts(lease),
    failure: [],
  };
}

/**
 * Where a batch goes when the topic has a consumer group: while any group's backlog key exists under `prefix`, the
 * events are put on `lease` (the backlog lease) instead of the retention lease — decided by etcd in the same
 * transaction, so a publisher needs to know nothing about the topic's groups.
 */
export interface BacklogChoice {
  prefix: Buffer;
  lease: string;
}

/** Both branches mean "stored": written now, or by an earlier attempt of this very batch. */
export function decodePublishBatch(outcome: TxnOutcome): { written: 'now' | 'earlier'; revision: string } {
  return { written: outcome.succeeded ? 'now' : 'earlier', revision: outcome.revision };
}

/**
 * `clearTopic`: delete the topic's events and every group's claims (members stay: their subscriptions live on).
 * Deleting is idempotent. It is sent on its own, not batched with other callers: a delete range sharing a
 * transaction with a put into that range is refused by some etcd versions (3.5 checks sibling sub-transactions).
 */
export function clearTopicTxn(events: Buffer, claims: Buffer): TxnRequest {
  return {
    compare: [],
    success: [
      { request_delete_range: { key: events, range_end: prefixEnd(events) } },
      { request_delete_range: { key: claims, range_end: prefixEnd(claims) } },
    ],
    failure: [],
  };
}
