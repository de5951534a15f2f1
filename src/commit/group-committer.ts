import { GRPCInvalidArgumentError } from 'etcd3';
import { TaskCancelledError } from 'cockatiel';
import { ProviderClosedError } from '../errors/closed.js';
import { nested, type TxnOutcome, type TxnRequest, type TxnResponse } from '../operations/etcd-txn.js';
import { ETCD_RPC_ERROR, etcdDescription } from '../transport/etcd-rpc-error.js';
import { planBatch, requestBytes } from './batch-plan.js';

/** Sends one transaction to etcd (one attempt; the caller's policy retries). */
export type SendTxn = (request: TxnRequest, deadline: Date) => Promise<TxnResponse>;

export interface GroupCommitOptions {
  /** Most sub-transactions per etcd Txn. Halved automatically if the server refuses a batch. */
  maxBatchSize: number;
  /** Most transactions in flight at once. */
  maxInFlight: number;
  /** Byte budget of one batch, well under etcd's --max-request-bytes (1.5 MiB by default). */
  maxBatchBytes: number;
  onBatch?: (size: number) => void;
  onDegrade?: (message: string) => void;
  /** Milliseconds from sending a transaction to its answer (success or a definite error), for the adaptive timeout. */
  onRoundTrip?: (ms: number) => void;
}

interface Submission {
  readonly keyId: string;
  readonly bytes: number;
  readonly request: TxnRequest;
  /** The attempt's timeout, counted from when its transaction is sent. */
  readonly timeoutMs: number;
  resolve(outcome: TxnOutcome): void;
  reject(error: unknown): void;
}

/**
 * Group commit: concurrent operations on distinct keys share one etcd Txn made of nested
 * sub-transactions, so one consensus round serves many callers.
 *
 * - No added delay when idle: a submission is sent at once if a transaction slot is free; what
 *   queues while slots are busy goes out together in the next batch.
 * - A batch of one is sent as the plain transaction, costing exactly what a raw Txn costs.
 * - Each sub-transaction has its own compares and branches, so one operation's compare failing never
 *   affects another's. Whole-batch failures (unreachable member, vanished lease) reject every member
 *   of the batch; each caller's retry policy resends its own idempotent operation.
 * - Servers that refuse the batch (fewer --max-txn-ops, smaller request limit: InvalidArgument) or do not
 *   know nested transactions (etcd < 3.3) are handled by shrinking the batch size, down to 1.
 */
export class GroupCommitter {
  private readonly queue: Submission[] = [];
  private readonly busyKeys = new Set<string>();
  private inFlight = 0;
  private pumpScheduled = false;
  private maxBatchSize: number;
  private closed = false;

  constructor(
    private readonly send: SendTxn,
    private readonly options: GroupCommitOptions,
  ) {
    this.maxBatchSize = options.maxBatchSize;
  }

  /** Current batch-size limit (lower than configured after the server refused larger batches). */
  get batchLimit(): number {
    return this.maxBatchSize;
  }

  submit(key: Buffer, request: TxnRequest, timeoutMs: number, signal?: AbortSignal): Promise<TxnOutcome> {
    if (this.closed) return Promise.reject(new ProviderClosedError('commit'));
    return new Promise<TxnOutcome>((resolve, reject) => {
      // An abandoned attempt leaves the queue at once; one already sent just has its answer ignored.
      const onAbort = () => this.withdraw(submission);
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const submission: Submission = {
        keyId: key.toString('latin1'),
        bytes: requestBytes(request),
        request,
        timeoutMs,
        resolve: (outcome) => {
          settle();
          resolve(outcome);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(submission);
      this.schedulePump();
    });
  }

  close(): void {
    this.closed = true;
    for (const s of this.queue.splice(0)) s.reject(new ProviderClosedError('commit'));
  }

  private withdraw(submission: Submission): void {
    const index = this.queue.indexOf(submission);
    if (index >= 0) {
      this.queue.splice(index, 1);
      submission.reject(new TaskCancelledError('attempt abandoned'));
    }
  }

  /**
   * Idle (nothing in flight): send at once, so a lone caller pays no extra delay. Busy: form the next
   * batch one event-loop turn later. When a batch returns, its callers' follow-up calls arrive one
   * microtask after another; pumping on each would send the first few as batches of one and make the
   * rest wait a whole round trip behind them (a returning batch keeps its slot for that turn too).
   */
  private schedulePump(): void {
    if (this.inFlight === 0 && !this.pumpScheduled) return this.pump();
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const indices = planBatch(this.queue, this.busyKeys, {
        maxOps: this.maxBatchSize,
        maxBytes: this.options.maxBatchBytes,
      });
      if (indices.length === 0) return; // everything queued waits on a key in flight
      const batch = indices.map((i) => this.queue[i]!);
      for (let k = indices.length - 1; k >= 0; k--) this.queue.splice(indices[k]!, 1);
      void this.dispatch(batch);
    }
  }

  private async dispatch(batch: Submission[]): Promise<void> {
    this.inFlight++;
    for (const s of batch) this.busyKeys.add(s.keyId);
    this.options.onBatch?.(batch.length);
    try {
      await this.commit(batch);
    } finally {
      for (const s of batch) this.busyKeys.delete(s.keyId);
      // After a batch of several, the slot is given back one event-loop turn later: the callers just
      // answered submit their follow-up calls within this turn, and those should leave together, not
      // the first one alone. A lone caller gets its slot back at once and pays no extra turn.
      const release = () => {
        this.inFlight--;
        this.schedulePump();
      };
      if (batch.length > 1) setImmediate(release);
      else release();
    }
  }

  /**
   * The batch's timeout is the longest of its members' attempt timeouts, counted from now: a member whose own
   * call ends sooner stops waiting for the answer (its signal), but never shortens the others' attempt — one
   * short deadline must not fail the batch, and a timeout must mean the member really took that long.
   */
  private async commit(batch: Submission[]): Promise<void> {
    const sentAt = performance.now();
    const deadline = new Date(Date.now() + Math.max(...batch.map((s) => s.timeoutMs)));
    if (batch.length === 1) {
      const only = batch[0]!;
      try {
        const response = await this.send(only.request, deadline);
        this.options.onRoundTrip?.(performance.now() - sentAt);
        only.resolve(toOutcome(response));
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    let response: TxnResponse;
    try {
      response = await this.send({ compare: [], success: batch.map((s) => nested(s.request)), failure: [] }, deadline);
      this.options.onRoundTrip?.(performance.now() - sentAt);
    } catch (error) {
      if (refusesBatchSize(error)) return this.shrinkAndRequeue(batch, `etcd refused a batch of ${batch.length}`);
      for (const s of batch) s.reject(error);
      return;
    }
    const revision = response.header?.revision ?? '0';
    if (batch.some((_, i) => !response.responses?.[i]?.response_txn)) {
      // The batch committed only if the server understood nesting; without results we cannot tell
      // what happened, so fall back to plain transactions and let idempotent retries settle it.
      this.maxBatchSize = 1;
      this.options.onDegrade?.('etcd returned no nested transaction results; group commit disabled');
      for (const s of batch) s.reject(new TaskCancelledError('nested transactions unsupported'));
      return;
    }
    batch.forEach((s, i) => {
      const inner = response.responses[i]!.response_txn!;
      s.resolve({ succeeded: inner.succeeded, responses: inner.responses ?? [], revision });
    });
  }

  /** Nothing in a refused batch was applied, so its members can simply go back to the front of the queue. */
  private shrinkAndRequeue(batch: Submission[], reason: string): void {
    this.maxBatchSize = Math.max(1, Math.floor(batch.length / 2));
    this.options.onDegrade?.(`${reason}; batch size lowered to ${this.maxBatchSize}`);
    this.queue.unshift(...batch);
  }
}

/**
 * Only the server's limits on a transaction's size are a reason to send smaller batches; any other InvalidArgument
 * (for example "revision of auth store is old", which is transient) goes to the callers' retry policy unchanged.
 */
function refusesBatchSize(error: unknown): boolean {
  if (!(error instanceof GRPCInvalidArgumentError)) return false;
  const description = etcdDescription(error);
  return description === ETCD_RPC_ERROR.tooManyOps || description === ETCD_RPC_ERROR.requestTooLarge;
}

function toOutcome(response: TxnResponse): TxnOutcome {
  return { succeeded: response.succeeded, responses: response.responses ?? [], revision: response.header?.revision ?? '0' };
}
