import type { Etcd3 } from 'etcd3';
import { inspect, type InspectOptionsStylized } from 'node:util';
import type { LeaseCallOptions } from './config/call-options.js';
import { acquireAttempt } from './calls/acquire-call.js';
import { LeaseBackend } from './calls/lease-backend.js';
import { OPERATIONS } from './calls/operation-set.js';
import { ReleaseCall } from './calls/release-call.js';
import { renewAttempt } from './calls/renew-call.js';
import { TransferCall } from './calls/transfer-call.js';
import type { ClockMoment, LeaseClock } from './clock/lease-clock.js';
import { EtcdCore } from './core/etcd-core.js';
import type { GroupCommitter } from './commit/group-committer.js';
import { KeyLanes } from './commit/key-lanes.js';
import { describeSettings } from './config/redact.js';
import { ProviderClosedError, type ClosedObject } from './errors/closed.js';
import { hold } from './handles/hold.js';
import type { LeaseHandle } from './handles/lease-handle.js';
import type { LeaseProviderContract } from './lease-provider-contract.js';
import { checkMetadata, splitMetadata } from './config/call-arguments.js';
import { checkEntrySize, checkText, encodeKey } from './keys/key-codec.js';
import { decodeLeaseValue, encodeLeaseValue } from './keys/lease-value.js';
import { checkTtl } from './keys/ttl.js';
import { LeaseTtlUnknownError } from './errors/ttl-unknown.js';
import { LeaseIdSpace } from './leases/lease-id.js';
import { isPlausible } from './leases/lease-ttl.js';
import type { LeasePool } from './leases/lease-pool.js';
import type { LeaseObserver } from './metrics/observer.js';
import { decodeRead, readTxn, type StoredLease } from './operations/read-lease.js';
import type { EtcdLeaseProviderOptions } from './config/options.js';
import type { ProviderInternals } from './provider-internals.js';
import type { ResolvedOptions } from './config/resolve-options.js';
import type { AcquireDecision, AcquireResultFor, ContractAcquireResult, LeaseInfo, LeaseRecord } from './results.js';
import { TenureTable } from './tenure/tenure-table.js';
import type { CallBudget, CallRunner } from './transport/call-runner.js';
import type { CallScope } from './transport/call-scope.js';
import { adaptWatcher } from './waiting/key-watch.js';
import type { LeaseOps } from './waiting/lease-ops.js';
import { Lifecycle } from './waiting/lifecycle.js';
import { checkWaitOptions } from './waiting/stop.js';
import type { WaitForLeaseOptions, WaitForLeaseResult } from './waiting/wait-options.js';
import { waitForLease } from './waiting/wait-for-lease.js';

/**
 * Internals for the provider `createLeaseProvider` is building. Handed over synchronously and taken by the constructor
 * first, before any code of the caller's (an options getter, a logger) could build another provider in between.
 */
let pendingInternals: ProviderInternals | undefined;

/**
 * Mastra's `LeaseProvider` on etcd: one key per lease under `prefix`, the owner (and run metadata, if any) as its
 * value, attached to a shared etcd lease whose expiry is never earlier than the caller's `ttlMs`.
 * Every ownership check is a compare inside the same etcd transaction as the write it guards; docs/design.md
 * explains the shapes and why late or reordered attempts cannot make two owners believe they hold a key.
 * `Contract` is the `contractResults` setting the compiler saw (inferred from the options): it picks the type
 * `acquireLease` resolves to.
 */
export class EtcdLeaseProvider<Contract extends boolean = false> implements LeaseProviderContract {
  private readonly core: EtcdCore;
  /** False when the core was handed in (EtcdPubSub): its creator closes it. */
  private readonly ownsCore: boolean;
  private readonly options: ResolvedOptions;
  private readonly client: Etcd3;
  private readonly prefixBytes: Buffer;
  private readonly runner: CallRunner;
  private readonly committer: GroupCommitter;
  private readonly pool: LeasePool;
  private readonly clock: LeaseClock;
  private readonly backend: LeaseBackend;
  private readonly observer: LeaseObserver;
  private readonly lifecycle = new Lifecycle();
  private readonly leaseOps: LeaseOps;
  private closed = false;
  private readonly closedAs: ClosedObject;
  /** What inspect/JSON show: settings with secrets redacted (the etcd3 client inside holds them in clear). */
  private readonly description: Record<string, unknown>;

  constructor(options: EtcdLeaseProviderOptions & { contractResults?: Contract }) {
    const internals = pendingInternals ?? {};
    pendingInternals = undefined;
    this.core = internals.core ?? new EtcdCore(options, internals.clock);
    this.ownsCore = internals.core === undefined;
    this.closedAs = internals.closedAs ?? 'EtcdLeaseProvider';
    this.options = this.core.options;
    this.description = describeSettings(this.options, options);
    ({ client: this.client, runner: this.runner, committer: this.committer, clock: this.clock, observer: this.observer } = this.core);
    this.prefixBytes = Buffer.from(this.options.prefix, 'utf8');
    const ids = new LeaseIdSpace(this.clock.wallOrigin, internals.leaseIdTag);
    this.pool = this.core.leasePool(this.options.leaseBucketMs, ids, 'lease');
    this.backend = new LeaseBackend({
      client: this.client,
      runner: this.runner,
      committer: this.committer,
      lanes: new KeyLanes(),
      pool: this.pool,
      clock: this.clock,
      tenures: new TenureTable(),
      operations: internals.operations ?? OPERATIONS,
      renewCoalesceMs: this.options.renewCoalesceMs,
    });
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

  /**
   * Takes `key` for `owner` (with run `metadata`, if given) for at least `ttlMs`, or refreshes it if exactly that
   * owner and metadata already hold it; otherwise reports the holder. The last two arguments may also be
   * `(call)` alone, as before metadata existed.
   */
  acquireLease(key: string, owner: string, ttlMs: number, call?: LeaseCallOptions): Promise<AcquireResultFor<Contract>>;
  acquireLease(key: string, owner: string, ttlMs: number, metadata: string | undefined, call?: LeaseCallOptions): Promise<AcquireResultFor<Contract>>;
  acquireLease(key: string, owner: string, ttlMs: number, metadata?: string | LeaseCallOptions, call?: LeaseCallOptions): Promise<AcquireResultFor<Contract>> {
    // Not an async function (hot path: no frame of its own); every error still arrives as a rejection.
    try {
      const sent = this.clock.moment();
      const args = splitMetadata('metadata', metadata, call);
      const etcdKey = this.checkKey('acquireLease', key, owner);
      const value = this.storedValue(etcdKey, owner, args.metadata);
      checkTtl(ttlMs, this.options.leaseBucketMs);
      const decided = this.acquire(etcdKey, value, key, owner, ttlMs, sent, args.call);
      // The option's value decided `Contract` at construction, so this is the type the caller was promised.
      return (this.options.contractResults ? decided.then(contractShape) : decided) as Promise<AcquireResultFor<Contract>>;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** `true` while `owner` (with exactly this `metadata`) holds `key`; it then lasts at least `ttlMs` more. */
  renewLease(key: string, owner: string, ttlMs: number, call?: LeaseCallOptions): Promise<boolean>;
  renewLease(key: string, owner: string, ttlMs: number, metadata: string | undefined, call?: LeaseCallOptions): Promise<boolean>;
  renewLease(key: string, owner: string, ttlMs: number, metadata?: string | LeaseCallOptions, call?: LeaseCallOptions): Promise<boolean> {
    // Not an async function (every held lease renews all the time); every error still arrives as a rejection.
    try {
      const sent = this.clock.moment();
      const args = splitMetadata('metadata', metadata, call);
      const etcdKey = this.checkKey('renewLease', key, owner);
      const value = this.storedValue(etcdKey, owner, args.metadata);
      checkTtl(ttlMs, this.options.leaseBucketMs);
      return this.observer.watchRenew(key, owner, this.renew(etcdKey, value, ttlMs, sent, args.call));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Deletes `key` if `owner` (with exactly this `metadata`) holds it; otherwise does nothing. */
  releaseLease(key: string, owner: string, call?: LeaseCallOptions): Promise<void>;
  releaseLease(key: string, owner: string, metadata: string | undefined, call?: LeaseCallOptions): Promise<void>;
  async releaseLease(key: string, owner: string, metadata?: string | LeaseCallOptions, call?: LeaseCallOptions): Promise<void> {
    const args = splitMetadata('metadata', metadata, call);
    const etcdKey = this.checkKey('releaseLease', key, owner);
    const value = this.storedValue(etcdKey, owner, args.metadata);
    await this.release(etcdKey, value, this.budget(args.call));
  }

  /**
   * Hands `key` from `fromOwner` (with `fromMetadata`) to `toOwner` (stored with `toMetadata`) without it ever being
   * free. `false` when `fromOwner` no longer holds it. `(…, ttlMs, call)` is accepted as before metadata existed.
   */
  transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number, call?: LeaseCallOptions): Promise<boolean>;
  transferLease(
    key: string,
    fromOwner: string,
    toOwner: string,
    ttlMs: number,
    fromMetadata: string | undefined,
    toMetadata?: string,
    call?: LeaseCallOptions,
  ): Promise<boolean>;
  async transferLease(
    key: string,
    fromOwner: string,
    toOwner: string,
    ttlMs: number,
    fromMetadata?: string | LeaseCallOptions,
    toMetadata?: string,
    call?: LeaseCallOptions,
  ): Promise<boolean> {
    const sent = this.clock.moment();
    this.assertOpen('transferLease');
    const from = splitMetadata('fromMetadata', fromMetadata, typeof fromMetadata === 'object' ? call : undefined);
    // toMetadata is never call options (those come 5th, or 7th): an object here is a mistake, not options to drop.
    checkMetadata('toMetadata', toMetadata);
    const to = { metadata: toMetadata };
    checkText('fromOwner', fromOwner);
    checkText('toOwner', toOwner);
    checkText('key', key);
    const etcdKey = encodeKey(this.prefixBytes, key);
    const fromValue = encodeLeaseValue(fromOwner, from.metadata);
    const toValue = encodeLeaseValue(toOwner, to.metadata);
    checkEntrySize(etcdKey, [fromValue, toValue]);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    const callOptions = typeof fromMetadata === 'object' ? from.call : call;
    // Handing a lease to the very holder it has is a renew: a put onto a new lease could shorten it.
    if (fromValue.equals(toValue)) return this.renew(etcdKey, fromValue, ttlMs, sent, callOptions);
    const transfer = new TransferCall(this.backend, { etcdKey, keyId: etcdKey.toString('latin1'), from: fromValue, to: toValue, ttlMs, sent });
    return this.backend.write('transferLease', etcdKey, this.budget(callOptions), (attempt) => transfer.attempt(attempt));
  }

  async getLeaseOwner(key: string, call?: LeaseCallOptions): Promise<string | undefined> {
    const stored = await this.runRead('getLeaseOwner', key, call, (scope, etcdKey) => this.readStored(scope, etcdKey));
    return stored === undefined ? undefined : decodeLeaseValue(stored.value).owner;
  }

  /** The holder of `key` and its run metadata (absent for leases taken without), or `undefined` when it is free. */
  async getLeaseRecord(key: string, call?: LeaseCallOptions): Promise<LeaseRecord | undefined> {
    const stored = await this.runRead('getLeaseRecord', key, call, (scope, etcdKey) => this.readStored(scope, etcdKey));
    return stored === undefined ? undefined : decodeLeaseValue(stored.value);
  }

  /** Owner, metadata, fencing token and remaining server-side TTL of a key, or `undefined` when it is free. */
  async getLease(key: string, call?: LeaseCallOptions): Promise<LeaseInfo | undefined> {
    // One deadline for both requests: the read and the lease's time-to-live.
    return this.runRead('getLease', key, call, async (scope, etcdKey) => {
      const stored = await this.readStored(scope, etcdKey);
      if (stored === undefined) return undefined;
      const ttl = await this.runner.attempts(scope, async ({ deadline }) => {
        const res = await this.client.leaseClient.leaseTimeToLive({ ID: stored.leaseId }, { deadline });
        const answer = { ttlSeconds: Number(res.TTL), grantedSeconds: Number(res.grantedTTL) };
        // A just-elected leader's placeholder (leases/lease-ttl.ts): ask again rather than report a TTL etcd cannot have.
        if (!isPlausible(answer)) throw new LeaseTtlUnknownError(stored.leaseId, answer.ttlSeconds, answer.grantedSeconds);
        return res;
      });
      return { ...decodeLeaseValue(stored.value), fencingToken: stored.revision, ttlRemainingMs: Math.max(0, Number(ttl.TTL)) * 1000 };
    });
  }

  /**
   * Resolves once `owner` holds `key`: tries to acquire, and while another owner holds it waits on an
   * etcd watch of the key (release, expiry, transfer to `owner`) before trying again. Rejects with
   * `LeaseWaitTimeoutError` after `timeoutMs`, `LeaseAbortedError` when `signal` aborts, `ProviderClosedError`
   * on `close()`; a waiter that gives up never leaves the key held.
   */
  async waitForLease(key: string, owner: string, ttlMs: number, options?: WaitForLeaseOptions): Promise<WaitForLeaseResult> {
    const etcdKey = this.checkKey('waitForLease', key, owner);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    checkWaitOptions(options);
    this.storedValue(etcdKey, owner, options?.metadata);
    return (await waitForLease(this.leaseOps, key, owner, ttlMs, options)).result;
  }

  /**
   * Waits like `waitForLease`, then renews the lease about every ttlMs/3 until the handle is released.
   * `handle.signal` aborts as soon as the lease is known lost; `await using` releases it.
   */
  async hold(key: string, owner: string, ttlMs: number, options?: WaitForLeaseOptions): Promise<LeaseHandle> {
    const etcdKey = this.checkKey('hold', key, owner);
    checkTtl(ttlMs, this.options.leaseBucketMs);
    checkWaitOptions(options);
    this.storedValue(etcdKey, owner, options?.metadata);
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
    this.pool.close();
    if (this.ownsCore) this.core.close(new ProviderClosedError('call in flight'));
  }

  /** The provider's own answer, with its fencing token whatever `contractResults` says (waiters and `onEvent` need it). */
  private acquire(etcdKey: Buffer, value: Buffer, key: string, owner: string, ttlMs: number, sent: ClockMoment, call?: LeaseCallOptions): Promise<AcquireDecision> {
    // Promise callbacks rather than an async closure: this wraps every acquire (hot path).
    return this.observer.timeAcquire(key, owner, () => {
      const request = { etcdKey, keyId: etcdKey.toString('latin1'), value, ttlMs, sent };
      return this.backend.write('acquireLease', etcdKey, this.budget(call), (attempt) => acquireAttempt(this.backend, request, attempt), undefined, request.keyId).then((answer): AcquireDecision => {
        if (!answer.acquired) return answer.holder === undefined ? { acquired: false } : { acquired: false, owner: decodeLeaseValue(answer.holder).owner };
        return { acquired: true, owner, fencingToken: answer.revision };
      });
    });
  }

  private renew(etcdKey: Buffer, value: Buffer, ttlMs: number, sent: ClockMoment, call?: LeaseCallOptions): Promise<boolean> {
    const request = { etcdKey, keyId: etcdKey.toString('latin1'), value, ttlMs, sent };
    return this.backend.write('renewLease', etcdKey, this.budget(call), (attempt) => renewAttempt(this.backend, request, attempt), { value, ttlMs }, request.keyId);
  }

  private release(etcdKey: Buffer, value: Buffer, budget: CallBudget, exactRevision?: string): Promise<void> {
    const release = new ReleaseCall(this.backend, etcdKey, value, exactRevision);
    return this.backend.write('releaseLease', etcdKey, budget, (attempt) => release.attempt(attempt));
  }

  /** The provider as waiters and handles use it: arguments already checked, no `assertOpen` (they clean up during close). */
  private createLeaseOps(): LeaseOps {
    return {
      acquire: (key, owner, ttlMs, metadata) =>
        this.acquire(this.encode(key), encodeLeaseValue(owner, metadata), key, owner, ttlMs, this.clock.moment()),
      // handles report their own losses
      renew: (key, owner, ttlMs, call, metadata) =>
        this.renew(this.encode(key), encodeLeaseValue(owner, metadata), ttlMs, this.clock.moment(), call),
      release: (key, owner, metadata) => this.release(this.encode(key), encodeLeaseValue(owner, metadata), this.budget(undefined)),
      releaseWrite: (key, owner, token, metadata) =>
        this.release(this.encode(key), encodeLeaseValue(owner, metadata), this.budget(undefined), token),
      watch: (key, onEvent, startRevision) => {
        const builder = this.client.watch().key(this.encode(key));
        if (startRevision !== undefined) builder.startRevision(startRevision);
        return adaptWatcher(builder.watcher(), onEvent);
      },
      clock: this.clock,
      deadlineMs: this.options.deadlineMs,
      attemptTimeoutMs: () => this.runner.timeouts.baseMs,
      lifecycle: this.lifecycle,
      observer: this.observer,
      logger: this.options.logger,
    };
  }

  private encode(key: string): Buffer {
    return encodeKey(this.prefixBytes, key);
  }

  private storedValue(etcdKey: Buffer, owner: string, metadata: string | undefined): Buffer {
    const value = encodeLeaseValue(owner, metadata);
    checkEntrySize(etcdKey, [value]);
    return value;
  }

  /** A read call: its own scope (no key lane — reads need no order among this provider's writes). */
  private async runRead<T>(operation: string, key: string, call: LeaseCallOptions | undefined, read: (scope: CallScope, etcdKey: Buffer) => Promise<T>): Promise<T> {
    this.assertOpen(operation);
    checkText('key', key);
    const etcdKey = encodeKey(this.prefixBytes, key);
    checkEntrySize(etcdKey, []);
    const scope = this.runner.open(operation, this.budget(call));
    try {
      return await read(scope, etcdKey);
    } finally {
      scope.dispose();
    }
  }

  private readStored(scope: CallScope, etcdKey: Buffer): Promise<StoredLease | undefined> {
    if (this.options.readConsistency === 'serializable') {
      return this.runner.attempts(scope, async ({ deadline }) => {
        const res = await this.client.kv.range({ key: etcdKey, serializable: true }, { deadline });
        return decodeRead({ succeeded: true, responses: [{ response_range: res }], revision: res.header.revision });
      });
    }
    return this.runner.attempts(scope, async (attempt) =>
      decodeRead(await this.committer.submit(etcdKey, readTxn(etcdKey), attempt.timeoutMs, attempt.signal, { operation: scope.operation })),
    );
  }



  private checkKey(operation: string, key: string, owner: string): Buffer {
    this.assertOpen(operation);
    checkText('key', key);
    checkText('owner', owner);
    return encodeKey(this.prefixBytes, key);
  }

  private budget(call: LeaseCallOptions | undefined): CallBudget {
    return this.core.budget(this.core.deadlineOf(call), call?.signal);
  }

  private assertOpen(operation: string): void {
    if (this.closed) throw new ProviderClosedError(operation, this.closedAs);
  }
}

/**
 * An `EtcdLeaseProvider` with seams inside the package (provider-internals.ts): the core of an EtcdPubSub; for the
 * test suite, the clock, the transaction shapes and the lease-id tag. Not exported from the package entry, so the
 * public constructor takes options alone.
 */
export function createLeaseProvider(options: EtcdLeaseProviderOptions, internals: ProviderInternals): EtcdLeaseProvider<boolean> {
  pendingInternals = internals;
  try {
    return new EtcdLeaseProvider(options);
  } finally {
    pendingInternals = undefined;
  }
}

/** `contractResults: true`: exactly `{ acquired, owner }`, the shape Mastra's contract states (its tests compare deeply). */
function contractShape(decision: AcquireDecision): ContractAcquireResult {
  if (decision.acquired) return { acquired: true, owner: decision.owner };
  return decision.owner === undefined ? { acquired: false } : { acquired: false, owner: decision.owner };
}
