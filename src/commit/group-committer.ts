import { GRPCInvalidArgumentError } from 'etcd3';
import { TaskCancelledError } from 'cockatiel';
import { ProviderClosedError } from '../errors/closed.js';
import { EtcdNoSpaceError } from '../errors/no-space.js';
import { EtcdOverloadedError } from '../errors/overloaded.js';
import { nested, type TxnOutcome, type TxnRequest, type TxnResponse } from '../operations/etcd-txn.js';
import { ETCD_RPC_ERROR, etcdDescription } from '../transport/etcd-rpc-error.js';
import { POLICY } from '../policy.js';
import type { StopSignal } from '../transport/stop-signal.js';
import { ArrivalRate } from './arrival-rate.js';
import { addTo, ETCD_MAX_TXN_OPS, fits, nestingCost, requestBytes, type BatchFill } from './batch-plan.js';
import { InFlightLimit } from './in-flight-limit.js';
import { ServiceRate } from './service-rate.js';
import { countedByQuota, quotaCounted, SpaceAlarm, writesKeys } from './space-alarm.js';
import { Superseded } from './superseded.js';
import { unstacked } from './unstacked.js';
import { ReadyQueue, type Sheddable } from './ready-queue.js';

/** Sends one transaction to etcd (one attempt; the caller's policy retries). */
type SendTxn = (request: TxnRequest, deadline: Date) => Promise<TxnResponse>;

interface GroupCommitOptions {
  /** Most sub-transactions per etcd Txn (and at most what etcd's --max-txn-ops leaves: batch-plan.ts). Halved if the server refuses a batch. */
  maxBatchSize: number;
  /** Most transactions in flight at once: the limit adapts to the commit latency between `minInFlight` and this. */
  maxInFlight: number;
  /** Fewest transactions the adaptive limit allows (and where it starts). @default min(maxInFlight, POLICY.commit.inFlight.min) */
  minInFlight?: number;
  /** Byte budget of one batch, well under etcd's --max-request-bytes (1.5 MiB by default). */
  maxBatchBytes: number;
  /** Queued operations are bounded by what the pipeline commits in this long at its recent pace. @default POLICY.commit.queueHorizonMs */
  queueHorizonMs?: number;
  /** Most operations queued, whatever the pace. @default POLICY.commit.maxQueued */
  maxQueued?: number;
  /**
   * A key the provider may write (its prefix), put in the never-taken failure branch of every writing batch so that
   * etcd's space quota counts the batch (space-alarm.ts). Without it, batches carry none.
   */
  quotaKey?: Buffer;
  /** Least time between two writes that test whether a NOSPACE alarm was cleared. @default POLICY.spaceAlarm.probeGapMs */
  spaceProbeGapMs?: number;
  /** A renew waits only when at least this many other operations are expected within its wait. @default POLICY.renewMinCompany */
  minCompanyToWait?: number;
  onBatch?: (size: number) => void;
  onDegrade?: (message: string) => void;
  /** Milliseconds from sending a transaction to its answer (success or a definite error), for the adaptive timeout. */
  onRoundTrip?: (ms: number) => void;
  /**
   * The adaptive attempt timeout as it stands when a batch leaves (its first attempts'). A submission carries the
   * timeout its attempt was given when it started, which can be long before it is sent (an acquire waits for its
   * lease's grant first): what was learnt meanwhile must still count.
   */
  currentTimeoutMs?: () => number;
  /** The NOSPACE alarm was found raised (true) or cleared (false). */
  onSpaceAlarm?: (raised: boolean) => void;
  /** Work was shed: at most once per POLICY.commit.shedNoticeEveryMs, with what it was. */
  onShed?: (message: string) => void;
}

/** How one operation may be scheduled. */
export interface SubmitOptions {
  /** > 0: it may wait up to this long for others to share its transaction (renews only, renew-delay.ts). */
  mayWaitMs?: number;
  /**
   * performance.now() by which it should be sent: a renewal's is one attempt timeout before the lease it renews
   * could end. Queued work goes most urgent first. @default now (fresh work goes before renewals with time to spare)
   */
  urgentAt?: number;
  /**
   * A renewal of a key whose holder's window is still open (as far as this provider wrote it): shed only after fresh
   * work, and never while renewals are a small share of the load (ready-queue.ts). @default false
   */
  leaseOpen?: boolean;
  /** The call it belongs to, for the errors it may be rejected with. @default 'commit' */
  operation?: string;
  /** The key's identity (`key` as latin1), when the caller has it already: it is computed once per call. */
  keyId?: string;
  /** Marks a renewal of the key by this value: a later renewal by the same value may supersede it while it waits. */
  renewOf?: string;
}

const NO_OPTIONS: SubmitOptions = {};

type Place = 'chained' | 'parked' | 'queued' | 'sent' | 'done';

/** One queued operation and the promise its caller waits on. A class, not closures: one is made per call. */
class Submission implements Sheddable {
  resolve!: (outcome: TxnOutcome) => void;
  reject!: (error: unknown) => void;
  /** Withdraws this submission when its attempt is abandoned; undefined without a signal. */
  onAbort: (() => void) | undefined;
  inQueue = false;
  place: Place = 'chained';
  /** Sent alone to find out whether the NOSPACE alarm is gone. */
  probe = false;

  constructor(
    /** Identity of the etcd key the operation touches (same key ⇒ same string). */
    readonly keyId: string,
    readonly bytes: number,
    readonly nesting: number,
    /** Puts something: refused by etcd under the NOSPACE alarm. */
    readonly writes: boolean,
    readonly request: TxnRequest,
    /** The attempt's timeout, counted from when its transaction is sent. */
    readonly timeoutMs: number,
    /** performance.now() by which it must be sent; -Infinity for an operation that may not wait. */
    public sendBy: number,
    readonly urgentAt: number,
    /** Renews a lease that is still open (SubmitOptions.leaseOpen). */
    readonly renewal: boolean,
    readonly seq: number,
    readonly signal: StopSignal | undefined,
    readonly operation: string,
    readonly renewOf: string | undefined,
  ) {}

  succeed(outcome: TxnOutcome): void {
    if (this.settle()) this.resolve(outcome);
  }

  fail(error: unknown): void {
    if (this.settle()) this.reject(error);
  }

  private settle(): boolean {
    if (this.place === 'done') return false;
    this.place = 'done';
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
    return true;
  }
}

/** The operations on one key, in order: the one being handled, and those that came after it. */
interface KeyTurn {
  active: Submission;
  readonly waiting: Submission[];
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
 * - Per-key order: an operation waits until the earlier one on its key has been answered.
 * - A submission that may wait (a renew, see renew-delay.ts) is parked until the first of: a transaction leaves
 *   anyway and has room for it, a full batch of parked ones has gathered, or the earliest parked send-by time
 *   arrives — then every parked one goes, so renewals on their own timers share transactions.
 * - Overload: what waits is sent most urgent first (a renewal by how soon the lease it renews could end, anything
 *   else by its arrival), the transactions in flight adapt to the commit latency (in-flight-limit.ts), and the
 *   queue holds at most what the pipeline commits within `queueHorizonMs`: past that an operation is
 *   shed at once with EtcdOverloadedError, instead of every call waiting until all of them miss. A renewal still
 *   waiting when a later one of the same key and value comes is superseded by it (`supersede`).
 * - NOSPACE (space-alarm.ts): writing batches are priced by etcd's quota like lone puts; once etcd reported the
 *   alarm, no write is sent but one probe at a time, and reads and deletes go on.
 * - Servers that refuse the batch (fewer --max-txn-ops, smaller request limit: InvalidArgument) or do not
 *   know nested transactions (etcd < 3.3) are handled by shrinking the batch size, down to 1.
 */
export class GroupCommitter {
  /** Recent submissions per second, for whether a renew's wait can find company. */
  private readonly arrivals = new ArrivalRate();
  /** The same, of renewals of open leases only: whether renewals are much of the load (`renewalsMayGo`). */
  private readonly renewalArrivals = new ArrivalRate();
  /** Operations to send as soon as a slot is free, most urgent first; shed fresh work first (ready-queue.ts). */
  private readonly ready = new ReadyQueue<Submission>();
  /** Operations that may still wait, in order of their send-by time. */
  private readonly parked: Submission[] = [];
  /** Per key with an operation pending: the one being handled (queued, parked or sent) and those behind it. */
  private readonly turns = new Map<string, KeyTurn>();
  /** Fires at the earliest parked send-by time. */
  private parkTimer: NodeJS.Timeout | undefined;
  private parkTimerAt = Number.POSITIVE_INFINITY;
  private readonly limiter: InFlightLimit;
  /** What the committer is measured to serve while work waits (for the queue's bound). */
  private readonly service = new ServiceRate();
  private readonly alarm: SpaceAlarm;
  private inFlight = 0;
  private seq = 0;
  private pumpScheduled = false;
  private maxBatchSize: number;
  private closed = false;
  private shedSinceNotice = 0;
  /** performance.now() of the last answer from etcd, and since when transactions have been in flight without a break. */
  private lastAnsweredAt = Number.NEGATIVE_INFINITY;
  private busySince = Number.NEGATIVE_INFINITY;
  /**
   * When the last silence ended (its first answer). A transaction sent before then waited through the silence: its
   * round trip says how long the election took, not how long a commit takes, so it is no sample of the commit time.
   */
  private silenceEndedAt = Number.NEGATIVE_INFINITY;
  /**
   * What piled up while etcd answered nothing (an election, an outage), and when it last did: the queue's bound does
   * not fall below it until that backlog has drained to half the ordinary bound, or a call's deadline has passed since
   * (everything from the silence has left by itself by then). Half, not all of it: a queue that only touched the
   * ordinary bound on its way down is still draining the backlog, and new work would be shed at the bound at once.
   */
  private silenceBacklog = 0;
  private silentAt = Number.NEGATIVE_INFINITY;
  private lastShedNoticeAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly send: SendTxn,
    private readonly options: GroupCommitOptions,
  ) {
    this.maxBatchSize = options.maxBatchSize;
    const settings = POLICY.commit.inFlight;
    const max = Math.max(1, options.maxInFlight);
    this.limiter = new InFlightLimit({ ...settings, max, min: Math.min(max, options.minInFlight ?? settings.min) });
    this.alarm = new SpaceAlarm(options.spaceProbeGapMs ?? POLICY.spaceAlarm.probeGapMs, (raised) => this.spaceAlarmChanged(raised));
  }

  /** Current batch-size limit (lower than configured after the server refused larger batches). */
  get batchLimit(): number {
    return this.maxBatchSize;
  }

  /** What the committer is doing, for metrics, tests and the benchmark. */
  get load(): { queued: number; parked: number; inFlight: number; inFlightLimit: number; queueLimit: number; commitMs: number | undefined } {
    return {
      queued: this.ready.size,
      parked: this.parked.length,
      inFlight: this.inFlight,
      inFlightLimit: this.limiter.limit,
      queueLimit: this.queueLimit(),
      commitMs: this.limiter.commitMs,
    };
  }

  /** The NOSPACE alarm as far as etcd has reported it. */
  get spaceAlarm(): Pick<SpaceAlarm, 'raised' | 'refusing' | 'raise'> {
    return this.alarm;
  }

  /** Queues `request` on `key` for the next transaction it fits in. */
  submit(key: Buffer, request: TxnRequest, timeoutMs: number, signal?: StopSignal, how: SubmitOptions = NO_OPTIONS): Promise<TxnOutcome> {
    const operation = how.operation ?? 'commit';
    if (this.closed) return Promise.reject(new ProviderClosedError(operation));
    if (signal?.aborted) return Promise.reject(abandoned());
    const now = performance.now();
    const writes = writesKeys(request);
    // etcd reported the alarm and no probe is due: failing now is what sending would end in, minus the load.
    if (writes && this.alarm.refusing(now)) return Promise.reject(unstacked(() => new EtcdNoSpaceError(operation)));
    let mayWaitMs = how.mayWaitMs ?? 0;
    // Waiting pays only with company: at the recent rate, enough others must be expected within the wait — and
    // with a full batch already queued there is company enough.
    if (mayWaitMs > 0 && (this.ready.size >= this.companyEnough() || this.arrivals.expectedWithin(mayWaitMs, now) < (this.options.minCompanyToWait ?? POLICY.renewMinCompany))) {
      mayWaitMs = 0;
    }
    this.arrivals.arrive(now);
    if (how.leaseOpen === true) this.renewalArrivals.arrive(now);
    const submission = new Submission(
      how.keyId ?? key.toString('latin1'),
      requestBytes(request),
      nestingCost(request),
      writes,
      request,
      timeoutMs,
      mayWaitMs > 0 ? now + mayWaitMs : Number.NEGATIVE_INFINITY,
      how.urgentAt ?? now,
      how.leaseOpen === true,
      this.seq++,
      signal,
      operation,
      how.renewOf,
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
    const turn = this.turns.get(submission.keyId);
    if (turn !== undefined) {
      // An earlier operation on this key is pending: it goes first (now, if it was waiting for company), and this
      // one once it has been answered. Queued behind it first: unparked, it may be shed at once, and its turn then
      // passes to this one.
      submission.sendBy = Number.NEGATIVE_INFINITY;
      turn.waiting.push(submission);
      if (turn.active.place === 'parked') this.unpark(turn.active);
    } else {
      this.turns.set(submission.keyId, { active: submission, waiting: [] });
      if (submission.sendBy === Number.NEGATIVE_INFINITY) this.enqueue(submission);
      else this.park(submission);
    }
    this.schedulePump();
    return promise;
  }

  /**
   * A call that may not wait is about to queue behind a parked operation on `keyId` (its key lane): send that one
   * now instead of at its send-by time.
   */
  expedite(keyId: string): void {
    const active = this.turns.get(keyId)?.active;
    if (active?.place !== 'parked') return;
    this.unpark(active);
    this.schedulePump();
  }

  /**
   * Whether an operation due at `urgentAt` (performance.now()) — `renewal`: renewing a lease still open — would be shed
   * as it came: the queue is at its bound and holds nothing to shed before it (ready-queue.ts). A caller can then be
   * turned away before it costs anything (LeaseBackend.write).
   */
  shedsAt(urgentAt: number, renewal: boolean): boolean {
    if (!this.mightShed() || this.ready.size < this.queueLimit()) return false;
    const comer = { urgentAt, renewal, seq: Number.POSITIVE_INFINITY, inQueue: false };
    return this.ready.shedFirst(comer, this.renewalsMayGo(performance.now())) === comer;
  }

  /**
   * Whether anything could be shed now: the queue is at least at the lowest bound it can have (one full round of the
   * pipeline, or `maxQueued`). Cheap, so a caller asks this before it works out how urgent it is (shedsAt).
   */
  mightShed(): boolean {
    return this.ready.size >= Math.min(this.options.maxQueued ?? POLICY.commit.maxQueued, this.limiter.limit * this.maxBatchSize);
  }

  /** The error a call shed before it reached the queue rejects with (see shedsAt). */
  shedError(operation: string): EtcdOverloadedError {
    this.noticeShed();
    return unstacked(() => new EtcdOverloadedError(operation, this.ready.size, this.backlogMs()));
  }

  /**
   * A later renewal of `keyId` by `renewOf` has come: a renewal by the same value that still waits to be sent is not
   * sent but rejects with `Superseded`, carrying `outcome` (the later call's result) for its call to settle like (the
   * later one renews further, at the same cost). Returns whether one was.
   */
  supersede(keyId: string, renewOf: string, outcome: Promise<unknown>): boolean {
    const active = this.turns.get(keyId)?.active;
    if (active === undefined || active.renewOf !== renewOf || (active.place !== 'queued' && active.place !== 'parked')) return false;
    this.takeOut(active);
    active.fail(unstacked(() => new Superseded(outcome)));
    this.endTurn(active);
    this.schedulePump();
    return true;
  }

  close(): void {
    this.closed = true;
    this.disarm();
    const pending = [...this.ready.drain(), ...this.parked.splice(0)];
    for (const turn of this.turns.values()) pending.push(...turn.waiting.splice(0));
    this.turns.clear();
    for (const s of pending) s.fail(new ProviderClosedError(s.operation));
  }

  /** Operations waiting to be sent, parked ones included (for tests and metrics). */
  get pending(): number {
    let waiting = 0;
    for (const turn of this.turns.values()) waiting += turn.waiting.length;
    return this.ready.size + this.parked.length + waiting;
  }

  /**
   * The attempt was abandoned: its promise rejects at once. Still waiting, it leaves without being sent; already
   * sent, its transaction goes on for the others and this one's answer is ignored (its key stays busy until then).
   * So a caller waiting on `submit` never waits past its signal (no race of its own needed).
   */
  private withdraw(s: Submission): void {
    if (s.place === 'chained') {
      const waiting = this.turns.get(s.keyId)?.waiting;
      const index = waiting?.indexOf(s) ?? -1;
      if (index >= 0) waiting!.splice(index, 1);
      s.fail(abandoned());
      return;
    }
    const waited = s.place === 'queued' || s.place === 'parked';
    if (waited) this.takeOut(s);
    s.fail(abandoned());
    if (waited) {
      this.endTurn(s);
      this.schedulePump();
    }
  }

  /** Removes a queued or parked submission from where it waits. */
  private takeOut(s: Submission): void {
    if (s.place === 'queued') this.ready.remove(s);
    else if (s.place === 'parked') this.parked.splice(this.parked.indexOf(s), 1);
  }

  /**
   * Queues `s` to be sent, within the bound: past it, the first to shed of the queue and `s` (ready-queue.ts) is shed — as many as it
   * takes to get under the bound, which shrinks when commits slow down.
   */
  private enqueue(s: Submission): void {
    s.place = 'queued';
    const limit = this.queueLimit();
    const renewalsMayGo = this.renewalsMayGo(performance.now());
    while (this.ready.size >= limit) {
      const first = this.ready.shedFirst(s, renewalsMayGo);
      if (first === undefined) break; // renewals of open leases, few beside the load: admitted past the bound
      if (first === s) return this.shed(s);
      this.ready.remove(first);
      this.shed(first);
    }
    this.ready.push(s);
  }

  /**
   * Whether renewals of open leases may be shed at all: only while they are much of the recent load
   * (POLICY.commit.shedRenewalsFromShare). Beside a flood of fresh work they are few, and shedding them would lose
   * leases for the sake of work that can simply be asked again.
   */
  private renewalsMayGo(now: number): boolean {
    const all = this.arrivals.expectedWithin(1000, now);
    return all > 0 && this.renewalArrivals.expectedWithin(1000, now) >= POLICY.commit.shedRenewalsFromShare * all;
  }

  /** Rejects a submission that waited (or was about to) as shed, and lets the next operation on its key go. */
  private shed(s: Submission): void {
    s.fail(unstacked(() => new EtcdOverloadedError(s.operation, this.ready.size, this.backlogMs())));
    this.endTurn(s);
    this.noticeShed();
  }

  /** `s` is done (answered, failed, shed, withdrawn): the next operation on its key may go. */
  private endTurn(s: Submission): void {
    const turn = this.turns.get(s.keyId);
    if (turn === undefined || turn.active !== s) return;
    const next = turn.waiting.shift();
    if (next === undefined) {
      this.turns.delete(s.keyId);
      return;
    }
    turn.active = next;
    this.enqueue(next);
  }

  /**
   * Operations the queue may hold: what the committer serves within the horizon at its recent pace, but at least one
   * full round of the pipeline and never more than `maxQueued`. Before the first answer nothing says the cluster is
   * slow, so only `maxQueued` applies.
   */
  private queueLimit(): number {
    const max = this.options.maxQueued ?? POLICY.commit.maxQueued;
    const perMs = this.servedPerMs();
    if (perMs === undefined) return max;
    const horizon = this.options.queueHorizonMs ?? POLICY.commit.queueHorizonMs;
    const ordinary = Math.min(max, Math.max(this.limiter.limit * this.maxBatchSize, Math.round(perMs * horizon)));
    return Math.min(max, Math.max(ordinary, this.silenceBound(ordinary)));
  }

  /**
   * A silence is no overload: while etcd answers nothing with work in flight, nothing says what it could commit, so the
   * queue takes what comes (each call still leaves at its deadline); once answers come again, what piled up is sent,
   * not shed as if it were more than the cluster commits. 0 outside a silence and its backlog.
   */
  private silenceBound(ordinary: number): number {
    const now = performance.now();
    if (this.inFlight > 0 && this.silentUntil(now)) {
      this.silenceBacklog = Math.max(this.silenceBacklog, this.ready.size + 1);
      this.silentAt = now;
    } else if (this.ready.size < ordinary / 2 || now - this.silentAt > POLICY.deadlineMs) {
      this.silenceBacklog = 0;
    }
    return this.silenceBacklog;
  }

  /** Whether etcd has answered nothing since the last answer, or since work went out after a pause, up to `now`. */
  private silentUntil(now: number, silentMs = this.silentMs()): boolean {
    return now - Math.max(this.lastAnsweredAt, this.busySince) > silentMs;
  }

  /** A gap with no answer longer than this, with work in flight, is a silence (POLICY.commit.silentMinMs). */
  private silentMs(): number {
    return Math.max(POLICY.commit.silentMinMs, POLICY.commit.silentCommits * (this.limiter.commitMs ?? 0));
  }

  /**
   * The pace: what the pipeline could carry (transactions in flight × batch size per commit time), or less when it
   * is measured to serve less (service-rate.ts).
   */
  private servedPerMs(): number | undefined {
    const commitMs = this.limiter.commitMs;
    if (commitMs === undefined) return undefined;
    const carried = (this.limiter.limit * this.maxBatchSize) / Math.max(commitMs, 1);
    const measured = this.service.perMs(performance.now());
    return measured === undefined ? carried : Math.min(carried, measured);
  }

  /** About how long the queue takes to commit at the recent pace, in ms. */
  private backlogMs(): number {
    const perMs = this.servedPerMs();
    return perMs === undefined ? 0 : this.ready.size / perMs;
  }

  private noticeShed(): void {
    this.shedSinceNotice++;
    const now = performance.now();
    if (now - this.lastShedNoticeAt < POLICY.commit.shedNoticeEveryMs) return;
    const { queued, queueLimit, inFlightLimit, commitMs } = this.load;
    this.options.onShed?.(
      `etcd commits less than is asked of it: ${this.shedSinceNotice} operation(s) shed with ELEASE_OVERLOADED since the last notice ` +
        `(${queued} queued of at most ${queueLimit}, ${inFlightLimit} transactions in flight, commits take ${Math.round(commitMs ?? 0)} ms)`,
    );
    this.shedSinceNotice = 0;
    this.lastShedNoticeAt = now;
  }

  /** Inserts by send-by time (nearly always at the end: waits are similar), and arms the timer for the earliest. */
  private park(s: Submission): void {
    s.place = 'parked';
    let i = this.parked.length;
    while (i > 0 && this.parked[i - 1]!.sendBy > s.sendBy) i--;
    this.parked.splice(i, 0, s);
  }

  private unpark(s: Submission): void {
    this.parked.splice(this.parked.indexOf(s), 1);
    s.sendBy = Number.NEGATIVE_INFINITY;
    this.enqueue(s);
  }

  private arm(): void {
    // With every slot busy, the next answer pumps again: a timer now would only poll until then.
    const at = this.inFlight >= this.limiter.limit ? Number.POSITIVE_INFINITY : (this.parked[0]?.sendBy ?? Number.POSITIVE_INFINITY);
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
    return first !== undefined && (first.sendBy <= now || this.parked.length >= this.companyEnough());
  }

  /** How many operations are company enough for a renewal not to wait longer (POLICY.renewCompanyEnough). */
  private companyEnough(): number {
    return Math.min(this.maxBatchSize, POLICY.renewCompanyEnough);
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
    if (this.closed) return;
    const now = performance.now();
    while (this.inFlight < this.limiter.limit) {
      if (this.parkedDue(now)) {
        // Due: every parked operation goes (as many transactions as slots allow).
        for (const s of this.parked.splice(0)) {
          s.sendBy = Number.NEGATIVE_INFINITY;
          this.enqueue(s);
        }
      }
      if (this.ready.size === 0) break;
      const batch = this.takeBatch(now);
      if (batch.length > 0) void this.dispatch(batch);
    }
    if (this.ready.size === 0) this.service.drained(now);
    this.arm();
  }

  /**
   * The next transaction: the most urgent queued operations that fit (batch-plan.ts), then parked ones in the room
   * left. Under a known NOSPACE alarm a write goes only as the probe, alone; the others fail without being sent.
   */
  private takeBatch(now: number): Submission[] {
    const batch: Submission[] = [];
    const fill: BatchFill = { count: 0, bytes: 0, deepest: 0 };
    const limits = { maxOps: evenShare(this.ready.size, this.maxBatchSize, this.ready.peekSoonest(now)?.nesting ?? 0), maxBytes: this.options.maxBatchBytes, maxTxnOps: ETCD_MAX_TXN_OPS };
    for (let s = this.ready.peekSoonest(now); s !== undefined; s = this.ready.peekSoonest(now)) {
      if (s.writes && this.alarm.raised) {
        if (this.alarm.refusing(now)) {
          this.ready.remove(s);
          s.fail(unstacked(() => new EtcdNoSpaceError(s.operation)));
          this.endTurn(s);
          continue;
        }
        if (batch.length > 0) break; // the probe leaves alone, in the next transaction
        this.alarm.admit(now);
        this.ready.remove(s);
        s.probe = true;
        batch.push(s);
        break;
      }
      if (!fits(fill, s, limits)) break;
      this.ready.remove(s);
      addTo(fill, s);
      batch.push(s);
    }
    while (batch.length > 0 && !batch[0]!.probe && this.parked.length > 0 && fits(fill, this.parked[0]!, limits)) {
      const s = this.parked.shift()!;
      addTo(fill, s);
      batch.push(s);
    }
    for (const s of batch) s.place = 'sent';
    return batch;
  }

  private async dispatch(batch: Submission[]): Promise<void> {
    if (this.inFlight++ === 0) this.busySince = performance.now();
    // Work left waiting when this one left: the in-flight limit was what held it back.
    const saturated = this.ready.size > 0;
    this.options.onBatch?.(batch.length);
    try {
      await this.commit(batch, saturated);
    } finally {
      for (const s of batch) if (s.place !== 'queued') this.endTurn(s);
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
   * short deadline must not fail the batch, and a timeout must mean the member really took that long. Never shorter
   * than the adaptive timeout now (`currentTimeoutMs`): members given theirs before a slow grant taught it that
   * commits got slower would otherwise time out once more, each, for nothing.
   */
  private async commit(batch: Submission[], saturated: boolean): Promise<void> {
    const sentAt = performance.now();
    const deadline = new Date(Date.now() + Math.max(this.options.currentTimeoutMs?.() ?? 0, ...batch.map((s) => s.timeoutMs)));
    // Alone, an operation is sent as it is — unless etcd's quota would not see its puts (nested ones only).
    const plain = batch.length === 1 && countedByQuota(batch[0]!.request);
    let response: TxnResponse;
    try {
      response = await this.send(plain ? batch[0]!.request : this.batchRequest(batch), deadline);
    } catch (error) {
      if (batch[0]!.probe) this.alarm.probeEnded(performance.now(), false);
      if (etcdDescription(error) === ETCD_RPC_ERROR.noSpace) return this.refusedForSpace(batch, error);
      if (!plain && refusesBatchSize(error)) return this.shrinkAndRequeue(batch, `etcd refused a batch of ${batch.length}`);
      if (etcdDescription(error) === ETCD_RPC_ERROR.tooManyRequests) this.limiter.congested();
      for (const s of batch) s.fail(error);
      return;
    }
    const answeredAt = performance.now();
    // A silence is judged by the commit times before this answer: this one may be the first after an election.
    const silentMs = this.silentMs();
    if (this.silentUntil(answeredAt, silentMs)) this.silenceEndedAt = answeredAt;
    this.lastAnsweredAt = answeredAt;
    if (sentAt >= this.silenceEndedAt) this.limiter.observe(answeredAt - sentAt, answeredAt, saturated);
    this.service.answered(batch.length, answeredAt, silentMs);
    this.options.onRoundTrip?.(answeredAt - sentAt);
    if (batch[0]!.probe) this.alarm.probeEnded(answeredAt, true);
    if (plain) {
      batch[0]!.succeed(toOutcome(response));
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

  /** Every member nested in one Txn; a writing batch is priced by etcd's space quota like a lone put (space-alarm.ts). */
  private batchRequest(batch: Submission[]): TxnRequest {
    const request: TxnRequest = { compare: [], success: batch.map((s) => nested(s.request)), failure: [] };
    const key = this.options.quotaKey;
    return key !== undefined && batch.some((s) => s.writes) ? quotaCounted(request, key) : request;
  }

  /**
   * etcd refused the transaction for the NOSPACE alarm, so nothing of it was written. Writes fail with the typed
   * error; a read or delete that was refused only for the writes it shared a transaction with waits for the next one.
   */
  private refusedForSpace(batch: Submission[], error: unknown): void {
    this.alarm.raise(performance.now());
    for (const s of batch) {
      if (s.place === 'done') continue;
      if (s.writes || batch.length === 1) {
        s.fail(new EtcdNoSpaceError(s.operation, error));
      } else {
        s.place = 'chained'; // not queued yet: enqueue sets it
        this.enqueue(s);
      }
    }
  }

  /** The alarm changed. Raised: the parked renewals will not be sent either, so they fail now. */
  private spaceAlarmChanged(raised: boolean): void {
    this.options.onSpaceAlarm?.(raised);
    if (!raised) return;
    for (const s of this.parked.splice(0)) {
      s.fail(unstacked(() => new EtcdNoSpaceError(s.operation)));
      this.endTurn(s);
    }
  }

  /** Nothing in a refused batch was applied, so its members simply queue again, keeping their urgency. */
  private shrinkAndRequeue(batch: Submission[], reason: string): void {
    this.maxBatchSize = Math.max(1, Math.floor(batch.length / 2));
    this.options.onDegrade?.(`${reason}; batch size lowered to ${this.maxBatchSize}`);
    for (const s of batch) {
      if (s.place === 'done') continue;
      s.place = 'queued';
      this.ready.push(s);
    }
  }
}

/**
 * Most operations the next transaction takes when `queued` wait: what waits, spread evenly over the transactions it
 * needs. A batch holds at most `maxBatchSize` and what etcd's --max-txn-ops admits beside the nesting of its first
 * operation (batch-plan.ts); 256 acquires waiting then leave as 86 + 85 + 85, not as 127 + 127 + 2 — a consensus round
 * and a slot in flight spent on two.
 */
function evenShare(queued: number, maxBatchSize: number, nesting: number): number {
  const cap = Math.max(1, Math.min(maxBatchSize, ETCD_MAX_TXN_OPS - nesting));
  return queued > cap ? Math.ceil(queued / Math.ceil(queued / cap)) : maxBatchSize;
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

/** An attempt whose call ended: internal (the call rejects with its scope's own error), so no stack is worth its cost. */
function abandoned(): TaskCancelledError {
  return unstacked(() => new TaskCancelledError('attempt abandoned'));
}

function toOutcome(response: TxnResponse): TxnOutcome {
  return { succeeded: response.succeeded, responses: response.responses ?? [], revision: response.header?.revision ?? '0' };
}
