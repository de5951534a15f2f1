import { GRPCInvalidArgumentError } from 'etcd3';
import { TaskCancelledError } from 'cockatiel';
import { ProviderClosedError } from '../errors/closed.js';
import { nested, type TxnOutcome, type TxnRequest, type TxnResponse } from '../operations/etcd-txn.js';
import { ETCD_RPC_ERROR, etcdDescription } from '../transport/etcd-rpc-error.js';
import type { StopSignal } from '../transport/stop-signal.js';
import { ArrivalRate } from './arrival-rate.js';
import { planBatch, requestBytes } from './batch-plan.js';

/**
 * A renew waits only if at least this many other operations are expected within its wait: fewer would save
 * next to nothing and cost the renew its wait (a provider renewing a handful of keys sends at once).
 */
const MIN_COMPANY = 8;


/** Sends one transaction to etcd (one attempt; the caller's policy retries). */
export type SendTxn = (request: TxnRequest, deadline: Date) => Promise<TxnResponse>;

export interface GroupCommitOptions {
  /** Most sub-transactions per etcd Txn. Halved automatically if the server refuses a batch. */
  maxBatchSize: number;
  /** Most transactions in flight at once. */
  maxInFlight: number;
  /** Byte budget of one batch, well under etcd's --max-request-bytes (1.5 MiB by default). */
  maxBatchBytes: number;
  /** A renew waits only when at least this many other operations are expected within its wait. @default 8 */
  minCompanyToWait?: number;
  onBatch?: (size: number) => void;
  onDegrade?: (message: string) => void;
  /** Milliseconds from sending a transaction to its answer (success or a definite error), for the adaptive timeout. */
  onRoundTrip?: (ms: number) => void;
}

/** One queued operation and the promise its caller waits on. A class, not closures: one is made per call. */
class Submission {
  resolve!: (outcome: TxnOutcome) => void;
  reject!: (error: unknown) => void;
  /** Withdraws this submission when its attempt is abandoned; undefined without a signal. */
  onAbort: (() => void) | undefined;

  constructor(
    /** Identity of the etcd key the operation touches (same key ⇒ same string). */
    readonly keyId: string,
    readonly bytes: number,
    readonly request: TxnRequest,
    /** The attempt's timeout, counted from when its transaction is sent. */
    readonly timeoutMs: number,
    /** performance.now() by which it must be sent; -Infinity for an operation that may not wait. */
    public sendBy: number,
    readonly signal: StopSignal | undefined,
  ) {}

  succeed(outcome: TxnOutcome): void {
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
    this.resolve(outcome);
  }

  fail(error: unknown): void {
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
    this.reject(error);
  }
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
 * - A submission that may wait (a renew, see renew-delay.ts) is parked until the first of: a transaction leaves
 *   anyway and has room for it, a full batch of parked ones has gathered, or the earliest parked send-by time
 *   arrives — then every parked one goes, so renewals on their own timers share transactions.
 * - Servers that refuse the batch (fewer --max-txn-ops, smaller request limit: InvalidArgument) or do not
 *   know nested transactions (etcd < 3.3) are handled by shrinking the batch size, down to 1.
 */
export class GroupCommitter {
  /** Recent submissions per second, for whether a renew's wait can find company. */
  private readonly arrivals = new ArrivalRate();
  /** Operations to send as soon as a slot is free, in submission order. */
  private readonly queue: Submission[] = [];
  /** Operations that may still wait, in order of their send-by time. */
  private readonly parked: Submission[] = [];
  /** Keys of the parked operations (at most one each: see submit). */
  private readonly parkedKeys = new Set<string>();
  /** Fires at the earliest parked send-by time. */
  private parkTimer: NodeJS.Timeout | undefined;
  private parkTimerAt = Number.POSITIVE_INFINITY;
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

  /**
   * Queues `request` on `key` for the next transaction. `mayWaitMs` > 0: it may wait up to that long for others to
   * share its transaction (renews only; acquires, transfers and releases never wait).
   */
  submit(key: Buffer, request: TxnRequest, timeoutMs: number, signal?: StopSignal, mayWaitMs = 0): Promise<TxnOutcome> {
    if (this.closed) return Promise.reject(new ProviderClosedError('commit'));
    if (signal?.aborted) return Promise.reject(new TaskCancelledError('attempt abandoned'));
    const now = performance.now();
    // Waiting pays only with company: at the recent rate, enough others must be expected within the wait.
    if (mayWaitMs > 0 && this.arrivals.expectedWithin(mayWaitMs, now) < (this.options.minCompanyToWait ?? MIN_COMPANY)) mayWaitMs = 0;
    this.arrivals.arrive(now);
    const submission = new Submission(
      key.toString('latin1'),
      requestBytes(request),
      request,
      timeoutMs,
      mayWaitMs > 0 ? now + mayWaitMs : Number.NEGATIVE_INFINITY,
      signal,
    );
    const promise = new Promise<TxnOutcome>((resolve, reject) => {
      submission.resolve = resolve;
      submission.reject = reject;
    });
    if (signal !== undefined) {
      // An abandoned attempt leaves the queue at once; one already sent just has its answer ignored.
      submission.onAbort = () => this.withdraw(submission);
      signal.addEventListener('abort', submission.onAbort, { once: true });
    }
    if (submission.sendBy === Number.NEGATIVE_INFINITY || this.parkedKeys.has(submission.keyId)) {
      // Whatever is parked on this key was submitted earlier: it goes first, and this one right behind it, so
      // per-key order holds (parked operations are ordered by send-by time, not by submission).
      this.expedite(submission.keyId);
      submission.sendBy = Number.NEGATIVE_INFINITY;
      this.queue.push(submission);
    } else {
      this.park(submission);
    }
    this.schedulePump();
    return promise;
  }

  /**
   * A call that may not wait is about to queue behind a parked operation on `keyId` (its key lane): send that one
   * now instead of at its send-by time.
   */
  expedite(keyId: string): void {
    if (!this.parkedKeys.has(keyId)) return;
    const index = this.parked.findIndex((s) => s.keyId === keyId);
    const [s] = this.parked.splice(index, 1);
    this.parkedKeys.delete(keyId);
    s!.sendBy = Number.NEGATIVE_INFINITY;
    this.queue.push(s!);
    this.schedulePump();
  }

  close(): void {
    this.closed = true;
    this.disarm();
    this.parkedKeys.clear();
    for (const s of [...this.queue.splice(0), ...this.parked.splice(0)]) s.fail(new ProviderClosedError('commit'));
  }

  /** Operations waiting to be sent, parked ones included (for tests and metrics). */
  get pending(): number {
    return this.queue.length + this.parked.length;
  }

  /**
   * The attempt was abandoned: its promise rejects at once. Still queued, it leaves the queue and is never sent;
   * already sent, its transaction goes on for the others and this one's answer is ignored. So a caller waiting on
   * `submit` never waits past its signal (no race of its own needed).
   */
  private withdraw(submission: Submission): void {
    for (const list of [this.queue, this.parked]) {
      const index = list.indexOf(submission);
      if (index < 0) continue;
      list.splice(index, 1);
      if (list === this.parked) this.parkedKeys.delete(submission.keyId);
      break;
    }
    submission.fail(new TaskCancelledError('attempt abandoned'));
  }

  /** Inserts by send-by time (nearly always at the end: waits are similar), and arms the timer for the earliest. */
  private park(submission: Submission): void {
    let i = this.parked.length;
    while (i > 0 && this.parked[i - 1]!.sendBy > submission.sendBy) i--;
    this.parked.splice(i, 0, submission);
    this.parkedKeys.add(submission.keyId);
  }

  private arm(): void {
    // With every slot busy, the next answer pumps again: a timer now would only poll until then.
    const at = this.inFlight >= this.options.maxInFlight ? Number.POSITIVE_INFINITY : (this.parked[0]?.sendBy ?? Number.POSITIVE_INFINITY);
    if (at === this.parkTimerAt) return;
    this.disarm();
    if (at === Number.POSITIVE_INFINITY) return;
    this.parkTimerAt = at;
    // Ref'd: a parked renew is a pending call, which keeps the process alive like any other.
    this.parkTimer = setTimeout(() => {
      this.parkTimer = undefined;
      this.parkTimerAt = Number.POSITIVE_INFINITY;
      this.pump();
    }, Math.max(0, at - performance.now()));
  }

  private disarm(): void {
    if (this.parkTimer !== undefined) clearTimeout(this.parkTimer);
    this.parkTimer = undefined;
    this.parkTimerAt = Number.POSITIVE_INFINITY;
  }

  /**
   * Parked operations leave when a transaction goes anyway (they fill its room), when enough have gathered for a
   * full one, or when the earliest of them reaches its send-by time: then every parked one goes along.
   */
  private parkedDue(now: number): boolean {
    const first = this.parked[0];
    return first !== undefined && (first.sendBy <= now || this.parked.length >= this.maxBatchSize);
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
    let flushing = false;
    while (this.inFlight < this.options.maxInFlight && (this.queue.length > 0 || this.parked.length > 0)) {
      // Once the parked operations are due, all of them go (as many transactions as slots allow).
      flushing ||= this.parkedDue(performance.now());
      const urgent = this.queue.length;
      if (urgent === 0 && !flushing) break;
      const candidates = this.parked.length === 0 ? this.queue : this.queue.concat(this.parked);
      const indices = planBatch(candidates, this.busyKeys, {
        maxOps: this.maxBatchSize,
        maxBytes: this.options.maxBatchBytes,
      });
      if (indices.length === 0) break; // everything queued waits on a key in flight
      const batch = indices.map((i) => candidates[i]!);
      for (let k = indices.length - 1; k >= 0; k--) {
        const i = indices[k]!;
        if (i < urgent) this.queue.splice(i, 1);
        else this.parkedKeys.delete(this.parked.splice(i - urgent, 1)[0]!.keyId);
      }
      void this.dispatch(batch);
    }
    this.arm();
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
        only.succeed(toOutcome(response));
      } catch (error) {
        only.fail(error);
      }
      return;
    }
    let response: TxnResponse;
    try {
      response = await this.send({ compare: [], success: batch.map((s) => nested(s.request)), failure: [] }, deadline);
      this.options.onRoundTrip?.(performance.now() - sentAt);
    } catch (error) {
      if (refusesBatchSize(error)) return this.shrinkAndRequeue(batch, `etcd refused a batch of ${batch.length}`);
      for (const s of batch) s.fail(error);
      return;
    }
    const revision = response.header?.revision ?? '0';
    if (batch.some((_, i) => !response.responses?.[i]?.response_txn)) {
      // The batch committed only if the server understood nesting; without results we cannot tell
      // what happened, so fall back to plain transactions and let idempotent retries settle it.
      this.maxBatchSize = 1;
      this.options.onDegrade?.('etcd returned no nested transaction results; group commit disabled');
      for (const s of batch) s.fail(new TaskCancelledError('nested transactions unsupported'));
      return;
    }
    batch.forEach((s, i) => {
      const inner = response.responses[i]!.response_txn!;
      s.succeed({ succeeded: inner.succeeded, responses: inner.responses ?? [], revision });
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
