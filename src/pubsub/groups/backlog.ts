import { keyPresent, moveToLease, nested, onlyKeyIn, put, putKeepingLease, type TxnRequest } from '../../operations/etcd-txn.js';
import { prefixEnd } from '../keys/event-keys.js';
import { encodeClaim, settleTxn, type ClaimValue } from './claim-txns.js';

/**
 * Grouped work waits for its group. A consumer group of a topic keeps a *backlog key* under the topic
 * (`t/<T>/g/<G>`, event-keys.ts) on a lease `groupBacklogMs` long, written with its member keys and renewed by its
 * live members. While any group's backlog key exists, a publish puts the topic's events on a backlog lease of that
 * length instead of the retention lease (publish/batch-txn.ts, decided by etcd in the publish transaction), and a
 * group's claims go on the lease of the event they are about. So an event waits for the group however long the group
 * is busy or has no member at all — a deploy — up to the bound.
 *
 * Once the event is finished (acked, or dropped after its last attempt), it waits for nobody when the group is the
 * topic's only one: the ack then moves it, and its claim, back to a retention lease for its publish time (a few
 * seconds from now when that has passed), so fan-out subscribers still replay it for `retentionMs` and etcd holds it
 * no longer. The claim goes along as `done`: the group's other members learn from it that the event is finished, and
 * take its expiry for no loss.
 * etcd checks "only group" in the ack's own transaction (`onlyKeyIn`): a group created meanwhile keeps the event. With
 * several groups on a topic, finished events stay until the bound.
 */
interface FinishRequest {
  claimKey: Buffer;
  claimRevision: string;
  value: ClaimValue;
  eventKey: Buffer;
  /** The topic's backlog prefix and the create revision of this group's backlog key. */
  backlogs: Buffer;
  backlogCreated: string;
  /** The retention lease it goes back to: its publish time + `retentionMs`, or a little later when that is past. */
  lease: string;
}

/**
 * Ack or drop of an event this group alone waits for:
 *
 *   If MOD(claim) = mine                                   -- as settleTxn: a late ack after a takeover does nothing
 *   Then If (only this group's backlog key exists AND the event exists)
 *        Then move event and claim to the retention lease
 *        Else put(claim, value) keeping its lease
 *   Else range(claim)
 *
 * One sub-transaction, as a plain ack: grouped work costs publish, claim and ack. The event is moved with
 * `ignore_value`: its bytes are not sent again.
 */
export function finishTxn(request: FinishRequest): TxnRequest {
  const { claimKey, value, eventKey, lease } = request;
  const finish = [moveToLease(eventKey, lease), put(claimKey, encodeClaim(value), lease)];
  const inPlace = settleTxn(claimKey, request.claimRevision, value);
  return {
    ...inPlace,
    success: [
      nested({
        compare: [onlyKeyIn(request.backlogs, prefixEnd(request.backlogs), request.backlogCreated), keyPresent(eventKey)],
        success: finish,
        failure: [putKeepingLease(claimKey, encodeClaim(value))],
      }),
    ],
  };
}

/** The backlog key's value: the group's floor (group-checkpoint.ts) when above 0, so a rejoin finds it there too. */
export function encodeBacklog(floor = '0'): Buffer {
  return Buffer.from(JSON.stringify(floor === '0' ? {} : { floor }), 'utf8');
}
