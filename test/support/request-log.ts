import { KVClient, LeaseClient, type IRequestOp, type ITxnRequest } from 'etcd3';

/** One etcd Txn as a client of this process sent it. */
export interface SentTxn {
  /** The etcd3 KV client that sent it (`client.kv` of one Etcd3 instance): tells providers apart. */
  readonly origin: KVClient;
  /** `performance.now()` when it was handed to gRPC. */
  readonly sentAt: number;
  /** Its gRPC deadline, in ms from `sentAt` (Infinity without one). */
  readonly timeoutMs: number;
  /** The etcd key of each operation it carries, as latin1 strings: one for a plain Txn, one per member of a batch. */
  readonly keys: readonly string[];
  /** How it ended: 'ok', the error's message, or undefined while in flight. */
  outcome?: string;
}

/** One LeaseGrant as a client of this process sent it. */
export interface SentGrant {
  readonly sentAt: number;
  readonly ttlSeconds: number;
  outcome?: string;
}

export interface RequestLog {
  readonly txns: SentTxn[];
  readonly grants: SentGrant[];
  /** How many operations on `key` (latin1 of its etcd bytes) were sent, counting each batch member. */
  sendsOf(key: string): number;
  /** Sub-transactions sent in all, batches counted by their members. */
  operations(): number;
  clear(): void;
  restore(): void;
}

/**
 * Records every Txn and LeaseGrant any etcd3 client of this process sends, by wrapping etcd3's generated RPC
 * clients on their prototypes: it counts what the provider really puts on the wire — retries, batches and
 * abandoned attempts included — with no seam in src/. Each test file runs in its own worker, so the wrap
 * reaches no other file; `restore()` undoes it.
 */
export function recordRequests(): RequestLog {
  const txns: SentTxn[] = [];
  const grants: SentGrant[] = [];
  const originalTxn = KVClient.prototype.txn;
  const originalGrant = LeaseClient.prototype.leaseGrant;

  KVClient.prototype.txn = function (this: KVClient, request, options) {
    const entry: SentTxn = { origin: this, sentAt: performance.now(), timeoutMs: timeoutOf(options), keys: keysOf(request) };
    txns.push(entry);
    return settle(originalTxn.call(this, request, options), entry);
  };
  LeaseClient.prototype.leaseGrant = function (this: LeaseClient, request, options) {
    const entry: SentGrant = { sentAt: performance.now(), ttlSeconds: Number(request.TTL) };
    grants.push(entry);
    return settle(originalGrant.call(this, request, options), entry);
  };

  return {
    txns,
    grants,
    sendsOf: (key) => txns.reduce((n, t) => n + t.keys.filter((k) => k === key).length, 0),
    operations: () => txns.reduce((n, t) => n + t.keys.length, 0),
    clear: () => {
      txns.length = 0;
      grants.length = 0;
    },
    restore: () => {
      KVClient.prototype.txn = originalTxn;
      LeaseClient.prototype.leaseGrant = originalGrant;
    },
  };
}

function settle<T>(pending: Promise<T>, entry: { outcome?: string }): Promise<T> {
  pending.then(
    () => (entry.outcome = 'ok'),
    (error: unknown) => (entry.outcome = error instanceof Error ? error.message : String(error)),
  );
  return pending;
}

function timeoutOf(options: { deadline?: Date | number } | undefined): number {
  const deadline = options?.deadline;
  if (deadline === undefined) return Number.POSITIVE_INFINITY;
  return Number(deadline) - Date.now();
}

/**
 * A group-commit batch is a Txn with no compares whose every success operation is a nested Txn (src/commit); its
 * failure branch, never taken, may hold the put that makes etcd's space quota count it (commit/space-alarm.ts).
 */
function keysOf(request: ITxnRequest): string[] {
  const success = request.success ?? [];
  const isBatch = (request.compare ?? []).length === 0 && success.length > 0 && success.every((op) => op.request_txn);
  const plainKey = (txn: ITxnRequest) => keyOf(txn);
  return isBatch ? success.map((op) => plainKey(op.request_txn!)) : [plainKey(request)];
}

function keyOf(txn: ITxnRequest): string {
  const compareKey = txn.compare?.[0]?.key;
  const opKey = (op: IRequestOp | undefined) => op?.request_put?.key ?? op?.request_range?.key ?? op?.request_delete_range?.key;
  const key = compareKey ?? opKey(txn.success?.[0]);
  return key === undefined ? '' : Buffer.from(key).toString('latin1');
}
