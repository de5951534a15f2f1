import { setMaxListeners } from 'node:events';
import type { LeaseProvider } from '@mastra/core/events';
import { EtcdLeaseInvalidError, type Etcd3 } from 'etcd3';
import { inspect, type InspectOptionsStylized } from 'node:util';
import type { LeaseCallOptions } from './config/call-options.js';
import { hold } from './handles/hold.js';
import type { LeaseHandle } from './handles/lease-handle.js';
import { LeaseObserver } from './metrics/observer.js';
import { GroupCommitter } from './commit/group-committer.js';
import { describeSettings } from './config/redact.js';
import { ProviderClosedError } from './errors/closed.js';
import { LeaseArgumentRangeError } from './errors/invalid-argument.js';
import { checkEntrySize, checkText, encodeKey } from './keys/key-codec.js';
import { checkTtl } from './keys/ttl.js';
import { LeasePool } from './leases/lease-pool.js';
import { acquireTxn, decodeAcquire, type AcquireResult } from './operations/acquire.js';
import type { TxnOutcome, TxnRequest, TxnResponse } from './operations/etcd-txn.js';
import { decodeRead, readTxn, type LeaseRecord } from './operations/read-lease.js';
import { releaseTxn } from './operations/release.js';
import { decodeRenew, renewTxn } from './operations/renew.js';
import { decodeTransfer, transferTxn } from './operations/transfer.js';
import type { EtcdLeaseProviderOptions } from './config/options.js';
import { resolveOptions, type ResolvedOptions } from './config/resolve-options.js';
import { CallRunner, type AttemptContext, type CallBudget } from './transport/call-runner.js';
import { createEtcdClient } from './transport/etcd-client.js';
import { adaptWatcher } from './waiting/key-watch.js';
import type { LeaseOps } from './waiting/lease-ops.js';
import { Lifecycle } from './waiting/lifecycle.js';
import { releaseTokenTxn } from './waiting/release-token.js';
import { checkWaitOptions } from './waiting/stop.js';
import type { WaitForLeaseOptions, WaitForLeaseResult } from './waiting/wait-options.js';
import { waitForLease } from './waiting/wait-for-lease.js';

/** What `getLease` reports about a held lease. */
export interface LeaseInfo {
  owner: string;
  /** Decimal etcd revision of the holder's last write; strictly greater than any token an earlier holder saw. */
  fencingToken: string;
  /** Milliseconds until etcd may delete the key at the earliest, as the server counts it (whole seconds). */
  ttlRemainingMs: number;
}

/**
 * Mastra's `LeaseProvider` on etcd: one key per lease under `prefix`, the owner string as its value,
 * attached to a shared etcd lease whose expiry is never earlier than the caller's `ttlMs`.
 * Every ownership check is a compare inside the same etcd transaction as the write it guards.
 */
export class EtcdLeaseProvider implements LeaseProvider {
  private readonly options: ResolvedOptions;
  private readonly client: Etcd3;
  private readonly ownsClient: boolean;
  private readonly prefixBytes: Buffer;
  private readonly runner: CallRunner;
  private readonly committer: GroupCommitter;
  private readonly pool: LeasePool;
  private readonly observer: LeaseObserver;
  private readonly lifecycle = new Lifecycle();
  private readonly leaseOps: LeaseOps;
  private closed = false;
  /** What inspect/JSON show: settings with secrets redacted (the etcd3 client inside holds them in clear). */
  private readonly description: Record<string, unknown>;
  /** Aborted by close(): every call still in flight then rejects with ProviderClosedError. */
  private readonly lifetime = new AbortController();

  constructor(options: EtcdLeaseProviderOptions) {
    this.options = resolveOptions(options);
    // Every call in flight listens on the lifetime signal; thousands at once are expected, not a leak.
    setMaxListeners(0, this.lifetime.signal);
    this.description = describeSettings(this.options, options);
    const { hosts, client, logger } = this.options;
    this.ownsClient = client === undefined;
    // No network call happens here: etcd3 connects lazily on the first request.
    this.client =
      client ??
      createEtcdClient(options, hosts!, this.options.attemptTimeoutMs, (endpoint, state) => this.observer.circuit(endpoint, state));
    this.prefixBytes = Buffer.from(this.options.prefix, 'utf8');
    this.observer = new LeaseObserver({ onEvent: options.onEvent, meterProvider: options.meterProvider, logger });
    this.runner = new CallRunner(this.options.attemptTimeoutMs, this.options.prefix);
    this.committer = new GroupCommitter((request, deadline) => this.sendTxn(request, deadline), {
      maxBatchSize: this.options.maxBatchSize,
      maxInFlight: 4,
      maxBatchBytes: 1024 * 1024,
      onDegrade: (message) => logger.warn?.(message),
      onBatch: (size) => this.observer.batch(size),
    });
    this.pool = new LeasePool(
      (ttlSeconds) => this.grantLease(ttlSeconds),
      this.options.leaseBucketMs,
      (error) => logger.warn?.('background lease grant failed', { error }),
    );
    this.leaseOps = this.createLeaseOps();
  }

  /** `util.inspect` / `console.log`: settings only — never the password, the private key or client internals. */
  [inspect.custom](_depth: number, options: InspectOptionsStylized, inspectFn: typeof inspect): string {
    return `EtcdLeaseProvider ${inspectFn(this.toJSON(), options)}`;
  }

  /** `JSON.stringify`: the same redacted settings. */
  toJSON(): Record<string, unknown> {
    return { ...this.description, closed: this.closed };
  }

  /** The prefix every key of this provider lies under. */
  get prefix(): string {
    return this.options.prefix;
  }

  async acquireLease(key: string, owner: string, ttlMs: number, call?: LeaseCallOptions): Promise<AcquireResult> {
    const etcdKey = this.checkKey('acquireLease', key, owner);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    return this.acquire(etcdKey, key, owner, ttlMs, call);
  }

  async renewLease(key: string, owner: string, ttlMs: number, call?: LeaseCallOptions): Promise<boolean> {
    const etcdKey = this.checkKey('renewLease', key, owner);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    return this.observer.watchRenew(key, owner, this.renew(etcdKey, owner, ttlMs, call));
  }

  async releaseLease(key: string, owner: string, call?: LeaseCallOptions): Promise<void> {
    const etcdKey = this.checkKey('releaseLease', key, owner);
    await this.write('releaseLease', etcdKey, undefined, call, () => releaseTxn(etcdKey, owner), () => undefined);
  }

  async transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number, call?: LeaseCallOptions): Promise<boolean> {
    this.assertOpen('transferLease');
    checkText('fromOwner', fromOwner);
    checkText('toOwner', toOwner);
    checkText('key', key);
    const etcdKey = encodeKey(this.prefixBytes, key);
    checkEntrySize(etcdKey, [fromOwner, toOwner]);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    return this.write('transferLease', etcdKey, ttlMs, call, (lease) => transferTxn(etcdKey, fromOwner, toOwner, lease), decodeTransfer);
  }

  async getLeaseOwner(key: string, call?: LeaseCallOptions): Promise<string | undefined> {
    return (await this.readRecord('getLeaseOwner', key, call))?.owner;
  }

  /** Owner, fencing token and remaining server-side TTL of a key, or `undefined` when it is free. */
  async getLease(key: string, call?: LeaseCallOptions): Promise<LeaseInfo | undefined> {
    const record = await this.readRecord('getLease', key, call);
    if (!record) return undefined;
    const ttl = await this.runner.run('getLease', this.budget(call), ({ deadline }) =>
      this.client.leaseClient.leaseTimeToLive({ ID: record.leaseId }, { deadline }),
    );
    return { owner: record.owner, fencingToken: record.fencingToken, ttlRemainingMs: Math.max(0, Number(ttl.TTL)) * 1000 };
  }

  /**
   * Resolves once `owner` holds `key`: tries to acquire, and while another owner holds it waits on an
   * etcd watch of the key (release, expiry, transfer to `owner`) before trying again. Rejects with
   * `LeaseWaitTimeoutError` after `timeoutMs`, `LeaseAbortedError` when `signal` aborts, `ProviderClosedError`
   * on `close()`; a waiter that gives up never leaves the key held.
   */
  async waitForLease(key: string, owner: string, ttlMs: number, options?: WaitForLeaseOptions): Promise<WaitForLeaseResult> {
    this.checkKey('waitForLease', key, owner);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    checkWaitOptions(options);
    return (await waitForLease(this.leaseOps, key, owner, ttlMs, options)).result;
  }

  /**
   * Waits like `waitForLease`, then renews the lease about every ttlMs/3 until the handle is released.
   * `handle.signal` aborts as soon as the lease is known lost; `await using` releases it.
   */
  async hold(key: string, owner: string, ttlMs: number, options?: WaitForLeaseOptions): Promise<LeaseHandle> {
    this.checkKey('hold', key, owner);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    checkWaitOptions(options);
    return hold(this.leaseOps, key, owner, ttlMs, options);
  }

  /**
   * Stops all work, rejects queued calls, and closes the etcd client if this provider created it.
   * Waiters reject with `ProviderClosedError`; held handles end and are released (waiting at most `deadlineMs`).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.lifecycle.close(this.options.deadlineMs);
    this.observer.close();
    this.lifetime.abort(new ProviderClosedError('call in flight'));
    this.committer.close();
    this.pool.close();
    if (this.ownsClient) this.client.close();
  }

  private acquire(etcdKey: Buffer, key: string, owner: string, ttlMs: number, call?: LeaseCallOptions): Promise<AcquireResult> {
    return this.observer.timeAcquire(key, owner, () =>
      this.write('acquireLease', etcdKey, ttlMs, call, (lease) => acquireTxn(etcdKey, owner, lease), (o) => decodeAcquire(o, owner)),
    );
  }

  private renew(etcdKey: Buffer, owner: string, ttlMs: number, call?: LeaseCallOptions): Promise<boolean> {
    return this.write('renewLease', etcdKey, ttlMs, call, (lease) => renewTxn(etcdKey, owner, lease), decodeRenew);
  }

  /** The provider as waiters and handles use it: arguments already checked, no `assertOpen` (they clean up during close). */
  private createLeaseOps(): LeaseOps {
    return {
      acquire: (key, owner, ttlMs) => this.acquire(this.encode(key), key, owner, ttlMs),
      renew: (key, owner, ttlMs, call) => this.renew(this.encode(key), owner, ttlMs, call), // handles report their own losses
      release: (key, owner) => {
        const etcdKey = this.encode(key);
        return this.write('releaseLease', etcdKey, undefined, undefined, () => releaseTxn(etcdKey, owner), () => undefined);
      },
      releaseWrite: (key, owner, token) => {
        const etcdKey = this.encode(key);
        return this.write('releaseLease', etcdKey, undefined, undefined, () => releaseTokenTxn(etcdKey, owner, token), () => undefined);
      },
      watch: (key, onEvent, startRevision) => {
        const builder = this.client.watch().key(this.encode(key));
        if (startRevision !== undefined) builder.startRevision(startRevision);
        return adaptWatcher(builder.watcher(), onEvent);
      },
      deadlineMs: this.options.deadlineMs,
      lifecycle: this.lifecycle,
      observer: this.observer,
      logger: this.options.logger,
    };
  }

  private encode(key: string): Buffer {
    return encodeKey(this.prefixBytes, key);
  }

  private async readRecord(operation: string, key: string, call: LeaseCallOptions | undefined): Promise<LeaseRecord | undefined> {
    this.assertOpen(operation);
    checkText('key', key);
    const etcdKey = encodeKey(this.prefixBytes, key);
    checkEntrySize(etcdKey, []);
    if (this.options.readConsistency === 'serializable') {
      return this.runner.run(operation, this.budget(call), async ({ deadline }) => {
        const res = await this.client.kv.range({ key: etcdKey, serializable: true }, { deadline });
        return decodeRead({ succeeded: true, responses: [{ response_range: res }], revision: res.header.revision });
      });
    }
    return this.write(operation, etcdKey, undefined, call, () => readTxn(etcdKey), decodeRead);
  }

  /**
   * One operation = one transaction, retried under the call's budget. The lease is chosen per
   * attempt but always for the time the *call* was made, so a retry never stretches the promise.
   */
  private write<T>(
    operation: string,
    etcdKey: Buffer,
    ttlMs: number | undefined,
    call: LeaseCallOptions | undefined,
    build: (lease: string) => TxnRequest,
    decode: (outcome: TxnOutcome) => T,
  ): Promise<T> {
    const sentAt = performance.now();
    return this.runner.run(operation, this.budget(call), async (attempt: AttemptContext) => {
      const lease = ttlMs === undefined ? '0' : await this.pool.leaseFor(ttlMs, sentAt);
      try {
        return decode(await this.committer.submit(etcdKey, build(lease), attempt.deadline, attempt.signal));
      } catch (error) {
        if (error instanceof EtcdLeaseInvalidError) this.pool.invalidate(lease);
        throw error;
      }
    });
  }

  private sendTxn(request: TxnRequest, deadline: Date): Promise<TxnResponse> {
    return this.client.kv.txn(request, { deadline }) as unknown as Promise<TxnResponse>;
  }

  private async grantLease(ttlSeconds: number): Promise<{ id: string; ttlSeconds: number }> {
    const budget: CallBudget = { deadlineMs: this.options.deadlineMs, signals: [this.lifetime.signal] };
    const res = await this.runner.run('leaseGrant', budget, ({ deadline }) =>
      this.client.leaseClient.leaseGrant({ TTL: ttlSeconds }, { deadline }),
    );
    this.options.logger.debug?.('granted pooled lease', { id: res.ID, ttlSeconds: res.TTL });
    return { id: res.ID, ttlSeconds: Number(res.TTL) };
  }

  private checkKey(operation: string, key: string, owner: string): Buffer {
    this.assertOpen(operation);
    checkText('key', key);
    checkText('owner', owner);
    const etcdKey = encodeKey(this.prefixBytes, key);
    checkEntrySize(etcdKey, [owner]);
    return etcdKey;
  }

  private budget(call: LeaseCallOptions | undefined): CallBudget {
    const deadlineMs = call?.deadlineMs ?? this.options.deadlineMs;
    if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) {
      throw new LeaseArgumentRangeError('deadlineMs', `must be a finite number above 0, got ${deadlineMs}`);
    }
    return { deadlineMs, signals: call?.signal ? [call.signal, this.lifetime.signal] : [this.lifetime.signal] };
  }

  private assertOpen(operation: string): void {
    if (this.closed) throw new ProviderClosedError(operation);
  }
}
