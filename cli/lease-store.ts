import type { Etcd3, IKeyValue } from 'etcd3';
import { encodeKey } from '../src/keys/key-codec.js';
import { LeaseTtlUnknownError } from '../src/errors/ttl-unknown.js';
import { isPlausible } from '../src/leases/lease-ttl.js';
import { decodeDeleteRevision, deleteRevisionTxn } from '../src/operations/delete-revision.js';
import type { TxnResponse } from '../src/operations/etcd-txn.js';
import { countRange } from '../src/reads/count-range.js';
import { pagedRange } from '../src/reads/paged-range.js';
import { etcdRangeCall, type RangeCall } from '../src/reads/range-call.js';
import { CallRunner } from '../src/transport/call-runner.js';
import { createEtcdClient } from '../src/transport/etcd-client.js';
import { clientOptions, type ConnectionSettings } from './connection.js';
import { storedLease, type StoredLease } from './lease-row.js';
import { LeaseTtls } from './lease-ttls.js';

/** The CLI talks to a cluster an operator points it at: a longer attempt floor than the library's, within --timeout. */
const ATTEMPT_TIMEOUT_MS = 1000;

/** One page of a listing: every lease in it was read at `revision`. */
export interface LeasePage {
  leases: StoredLease[];
  revision: string;
}

export interface PageOptions {
  /** Most keys per request. */
  maxKeys?: number;
  /** Read this revision's snapshot. @default the first page's */
  revision?: string;
  signal?: AbortSignal;
  /** Keep only the leases this accepts (a kept page may be empty). */
  where?: (lease: StoredLease) => boolean;
  /** Look up remaining TTLs. @default true */
  ttl?: boolean;
}

/** What `deleteTenure` did. */
export type TenureDelete =
  | { kind: 'deleted' }
  /** The key is absent: freed meanwhile (released, expired, deleted) — or by this call's own earlier attempt. */
  | { kind: 'absent' }
  /** The key holds another version than the one named; it was left alone. */
  | { kind: 'changed'; current: StoredLease };

/**
 * Read-only views and the forced delete, straight on etcd (no provider semantics needed): the provider's own client
 * settings (no blind global retry, a breaker per member) and its retry runner, so a dead member costs one attempt
 * and each request stays inside `--timeout`. Listings are paged (src/reads), so their memory stays flat.
 */
export class LeaseStore {
  readonly client: Etcd3;
  private readonly runner: CallRunner;
  private readonly prefixBytes: Buffer;
  private readonly range: RangeCall;
  private readonly ttls: LeaseTtls;

  constructor(private readonly settings: ConnectionSettings) {
    const attemptTimeoutMs = Math.min(ATTEMPT_TIMEOUT_MS, settings.timeoutMs);
    this.client = createEtcdClient(clientOptions(settings), settings.hosts, attemptTimeoutMs);
    this.runner = new CallRunner(attemptTimeoutMs, settings.prefix);
    this.prefixBytes = Buffer.from(settings.prefix, 'utf8');
    // --timeout bounds each request (each page of a listing), not a whole listing of any length.
    this.range = etcdRangeCall(this.client, this.runner, 'range', (signal) => ({ ...this.budget(), signals: signal === undefined ? [] : [signal] }));
    this.ttls = new LeaseTtls((leaseId) => this.ttlRemainingMs(leaseId));
  }

  /**
   * Every lease under the prefix, page by page, all read at the first page's revision (one snapshot). `where` keeps
   * some; the kept ones get their remaining TTL (read as the page is: TTLs are not versioned) unless `ttl` is false.
   */
  async *pages(options: PageOptions = {}): AsyncGenerator<LeasePage, void, undefined> {
    const { where, ttl = true, ...read } = options;
    for await (const page of pagedRange(this.range, { prefix: this.prefixBytes, ...read })) {
      const kept = page.kvs.map((kv) => storedLease(this.prefixBytes, kv, null)).filter((lease) => where === undefined || where(lease));
      if (ttl) {
        const ttls = await this.ttls.resolve(kept.map((lease) => lease.leaseId));
        for (const lease of kept) lease.ttlRemainingMs = ttls.get(lease.leaseId) ?? null;
      }
      yield { leases: kept, revision: page.revision };
    }
  }

  /** How many leases there are under the prefix, and at which revision: one request, however many. */
  count(signal?: AbortSignal): Promise<{ count: number; revision: string }> {
    return countRange(this.range, { prefix: this.prefixBytes, ...(signal === undefined ? {} : { signal }) });
  }

  /** One lease, with its remaining TTL; undefined when the key is free. */
  async get(key: string): Promise<StoredLease | undefined> {
    const kv = await this.read(key);
    if (kv === undefined) return undefined;
    const ttls = await this.ttls.resolve([kv.lease]);
    return storedLease(this.prefixBytes, kv, ttls.get(kv.lease) ?? null);
  }

  /** The key as stored (no TTL lookup), for `release --force` to show and then delete exactly that version. */
  async holder(key: string): Promise<StoredLease | undefined> {
    const kv = await this.read(key);
    return kv === undefined ? undefined : storedLease(this.prefixBytes, kv, null);
  }

  /**
   * Deletes the key only while it is still the version with mod revision `fencingToken`, whoever holds it
   * (operations/delete-revision.ts). A retry of an attempt whose answer was lost, or a delete sent long after the
   * read, can therefore never remove a later write: a renewal, a transfer or a new tenure has another revision.
   */
  async deleteTenure(key: string, fencingToken: string): Promise<TenureDelete> {
    const etcdKey = this.etcdKey(key);
    const response = await this.runner.run('release --force', this.budget(), ({ deadline }) => this.client.kv.txn(deleteRevisionTxn(etcdKey, fencingToken), { deadline }) as unknown as Promise<TxnResponse>);
    const outcome = decodeDeleteRevision({ succeeded: response.succeeded, responses: response.responses ?? [], revision: response.header?.revision ?? '0' });
    if (outcome.deleted) return { kind: 'deleted' };
    if (outcome.current === undefined) return { kind: 'absent' };
    return { kind: 'changed', current: storedLease(this.prefixBytes, outcome.current, null) };
  }

  /** Deletes every key under the prefix; returns how many there were. One DeleteRange: nothing is read back. */
  async deleteAll(): Promise<number> {
    const res = await this.runner.run('delete prefix', this.budget(), ({ deadline }) => this.client.delete().prefix(this.prefixBytes).options({ deadline }).exec());
    return Number(res.deleted);
  }

  get prefixBuffer(): Buffer {
    return this.prefixBytes;
  }

  close(): void {
    this.client.close();
  }

  private async read(key: string): Promise<IKeyValue | undefined> {
    const etcdKey = this.etcdKey(key);
    const res = await this.runner.read('get', this.budget(), ({ deadline }) => this.client.kv.range({ key: etcdKey }, { deadline }));
    return res.kvs[0];
  }

  private etcdKey(key: string): Buffer {
    return encodeKey(this.prefixBytes, key);
  }

  private async ttlRemainingMs(lease: string): Promise<number | null> {
    const res = await this.runner.read('leaseTimeToLive', this.budget(), async ({ deadline }) => {
      const answer = await this.client.leaseClient.leaseTimeToLive({ ID: lease }, { deadline });
      // A just-elected leader's placeholder (src/leases/lease-ttl.ts): ask again rather than show a TTL the lease
      // cannot have (9 223 372 036 s on etcd before 3.4.32 / 3.5.14).
      if (!isPlausible({ ttlSeconds: Number(answer.TTL), grantedSeconds: Number(answer.grantedTTL) })) {
        throw new LeaseTtlUnknownError(lease, Number(answer.TTL), Number(answer.grantedTTL));
      }
      return answer;
    });
    // -1: the lease is gone and its keys are being deleted.
    return Math.max(0, Number(res.TTL)) * 1000;
  }

  /** Each request stays inside --timeout. */
  private budget(): { deadlineMs: number } {
    return { deadlineMs: this.settings.timeoutMs };
  }
}
