import { setMaxListeners } from 'node:events';
import type { Etcd3 } from 'etcd3';
import { LeaseClock } from '../clock/lease-clock.js';
import { GroupCommitter } from '../commit/group-committer.js';
import type { EtcdLeaseProviderOptions } from '../config/options.js';
import { resolveOptions, type ResolvedOptions } from '../config/resolve-options.js';
import { LeaseArgumentRangeError } from '../errors/invalid-argument.js';
import { grantPooledLease } from '../leases/grant.js';
import type { LeaseIdSpace } from '../leases/lease-id.js';
import { LeasePool } from '../leases/lease-pool.js';
import { LeaseObserver } from '../metrics/observer.js';
import type { TxnRequest, TxnResponse } from '../operations/etcd-txn.js';
import { CallRunner, type CallBudget } from '../transport/call-runner.js';
import { OpenScopes } from '../transport/call-scope.js';
import { createEtcdClient } from '../transport/etcd-client.js';
import { POLICY } from '../policy.js';

/**
 * What everything talking to one etcd cluster shares: the client (one set of connections and per-member health),
 * the retry runner with its adaptive timeout, the group committer (so one consensus round carries lease renewals and
 * events alike), the lease clock, the observer and the lifetime signal that close() fires.
 *
 * `EtcdLeaseProvider` builds one for itself; `EtcdPubSub` builds one and hands it to the lease provider it contains.
 * Whoever creates a core closes it.
 */
export class EtcdCore {
  readonly options: ResolvedOptions;
  readonly client: Etcd3;
  readonly runner: CallRunner;
  readonly committer: GroupCommitter;
  readonly clock: LeaseClock;
  readonly observer: LeaseObserver;
  /** Aborted by close(): every call still in flight then rejects with the reason given. */
  private readonly lifetimeController = new AbortController();
  private readonly openScopes = new OpenScopes();
  private readonly ownsClient: boolean;

  constructor(userOptions: EtcdLeaseProviderOptions, clock?: LeaseClock) {
    this.options = resolveOptions(userOptions);
    // Waiters and handles listen on the lifetime signal; thousands at once are expected, not a leak.
    setMaxListeners(0, this.lifetimeController.signal);
    const { hosts, client, logger } = this.options;
    this.observer = new LeaseObserver({ onEvent: userOptions.onEvent, meterProvider: userOptions.meterProvider, logger });
    this.ownsClient = client === undefined;
    // No network call happens here: etcd3 connects lazily on the first request.
    this.client =
      client ??
      createEtcdClient(
        userOptions,
        hosts!,
        this.options.attemptTimeoutMs,
        (endpoint, state) => this.observer.circuit(endpoint, state),
        // read when a member is probed or ranked, long after construction: the runner's estimate by then
        () => this.runner.timeouts.baseMs,
      );
    this.clock = clock ?? new LeaseClock();
    this.runner = new CallRunner(this.options.attemptTimeoutMs, this.options.prefix, this.options.deadlineMs);
    this.committer = new GroupCommitter((request, deadline) => this.sendTxn(request, deadline), {
      maxBatchSize: this.options.maxBatchSize,
      maxInFlight: POLICY.commit.inFlight.max,
      maxBatchBytes: POLICY.batch.maxBatchBytes,
      quotaKey: Buffer.from(this.options.prefix, 'utf8'),
      onDegrade: (message) => logger.warn?.(message),
      onShed: (message) => logger.warn?.(message),
      onSpaceAlarm: (raised) =>
        raised
          ? logger.warn?.("etcd's NOSPACE alarm is raised: writes fail with ELEASE_NO_SPACE until an operator compacts, defragments and disarms it")
          : logger.warn?.("etcd's NOSPACE alarm is cleared: writes resume"),
      onBatch: (size) => this.observer.batch(size),
      onRoundTrip: (ms) => this.runner.timeouts.observe(ms),
      currentTimeoutMs: () => Math.min(this.runner.timeouts.baseMs, this.options.deadlineMs),
    });
  }

  get lifetime(): AbortSignal {
    return this.lifetimeController.signal;
  }

  /** The deadline of a call: its own `deadlineMs`, else the core's, which must be a finite number above 0. */
  deadlineOf(call: { deadlineMs?: number } | undefined): number {
    const deadlineMs = call?.deadlineMs ?? this.options.deadlineMs;
    if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) {
      throw new LeaseArgumentRangeError('deadlineMs', `must be a finite number above 0, got ${deadlineMs}`);
    }
    return deadlineMs;
  }

  /**
   * Budget of one call: its own deadline (default `deadlineMs`), its signal, and the core's lifetime — as the set of
   * open scopes close() ends, not as a listener on the lifetime signal per call (transport/call-scope.ts).
   */
  budget(deadlineMs: number = this.options.deadlineMs, signal?: AbortSignal): CallBudget {
    return signal ? { deadlineMs, signals: [signal], lifetime: this.openScopes } : { deadlineMs, lifetime: this.openScopes };
  }

  /**
   * A pool of shared etcd leases (leases/lease-pool.ts) granted through this core's client and runner, with ids from
   * `ids`. `what` names its leases in the warning a failed background grant logs.
   */
  leasePool(bucketMs: number, ids: LeaseIdSpace, what: string): LeasePool {
    const { client, runner, clock } = this;
    const { logger } = this.options;
    const context = { client, runner, clock, logger, budget: () => this.budget() };
    return new LeasePool(
      (ttlSeconds, id, claims) => grantPooledLease(context, ttlSeconds, id, claims),
      bucketMs,
      clock,
      ids,
      // A grant that close() itself cancelled is no failure worth a warning: every process that closes while a
      // successor lease is on its way would print one.
      (error) => {
        if (!this.lifetimeController.signal.aborted) logger.warn?.(`background ${what} grant failed`, { error });
      },
    );
  }

  /** Ends every call in flight with `reason`, rejects queued transactions, closes the client if the core made it. */
  close(reason: Error): void {
    if (this.lifetimeController.signal.aborted) return;
    this.observer.close();
    this.lifetimeController.abort(reason);
    this.openScopes.end(reason);
    this.committer.close();
    if (this.ownsClient) this.client.close();
  }

  private sendTxn(request: TxnRequest, deadline: Date): Promise<TxnResponse> {
    return this.client.kv.txn(request, { deadline }) as unknown as Promise<TxnResponse>;
  }
}
