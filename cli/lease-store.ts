import type { Etcd3, IKeyValue } from 'etcd3';
import { decodeKey, encodeKey } from '../src/keys/key-codec.js';
import { CallRunner } from '../src/transport/call-runner.js';
import { POLICY } from '../src/transport/policy.js';
import { createEtcdClient } from '../src/transport/etcd-client.js';
import { clientOptions, type ConnectionSettings } from './connection.js';

/** One lease as `list --json` and `get --json` print it; the field set is part of the CLI's contract. */
export interface LeaseRow {
  /** The lease key as the provider's callers name it (prefix stripped). */
  key: string;
  owner: string;
  /** Decimal etcd mod revision of the key: the holder's fencing token. */
  fencingToken: string;
  /** Whole seconds the server still counts, in ms; 0 when it is about to vanish; null when the key has no etcd lease. */
  ttlRemainingMs: number | null;
}

/**
 * Read-only views and the forced delete, straight on etcd (no provider semantics needed): the
 * provider's own client settings (no blind global retry, a breaker per member) and its retry
 * runner, so a dead member costs one attempt and the whole call stays inside `--timeout`.
 */
export class LeaseStore {
  readonly client: Etcd3;
  private readonly runner: CallRunner;
  private readonly prefixBytes: Buffer;

  constructor(private readonly settings: ConnectionSettings) {
    const attemptTimeoutMs = Math.min(POLICY.cliAttemptTimeoutMs, settings.timeoutMs);
    this.client = createEtcdClient(clientOptions(settings), settings.hosts, attemptTimeoutMs);
    this.runner = new CallRunner(attemptTimeoutMs, settings.prefix);
    this.prefixBytes = Buffer.from(settings.prefix, 'utf8');
  }

  async list(): Promise<LeaseRow[]> {
    const res = await this.call('list', (deadline) => this.client.getAll().prefix(this.prefixBytes).options({ deadline }).exec());
    return this.rows(res.kvs);
  }

  async get(key: string): Promise<LeaseRow | undefined> {
    const etcdKey = this.etcdKey(key);
    const res = await this.call('get', (deadline) => this.client.kv.range({ key: etcdKey }, { deadline }));
    return (await this.rows(res.kvs))[0];
  }

  /**
   * Deletes the key whoever holds it. Returns the owner it had, or undefined when it was already
   * free. Safe to resend: a second delete of a deleted key deletes nothing.
   */
  async forceDelete(key: string): Promise<string | undefined> {
    const etcdKey = this.etcdKey(key);
    const res = await this.call('release --force', (deadline) =>
      this.client.kv.deleteRange({ key: etcdKey, prev_kv: true }, { deadline }),
    );
    const previous = res.prev_kvs[0];
    return previous === undefined ? undefined : previous.value.toString('utf8');
  }

  /** Deletes every key under the prefix; returns how many there were. */
  async deleteAll(): Promise<number> {
    const res = await this.call('delete prefix', (deadline) => this.client.delete().prefix(this.prefixBytes).options({ deadline }).exec());
    return Number(res.deleted);
  }

  keyOf(kv: IKeyValue): string {
    return decodeKey(this.prefixBytes, kv.key);
  }

  get prefixBuffer(): Buffer {
    return this.prefixBytes;
  }

  close(): void {
    this.client.close();
  }

  private etcdKey(key: string): Buffer {
    return encodeKey(this.prefixBytes, key);
  }

  private async rows(kvs: IKeyValue[]): Promise<LeaseRow[]> {
    // Keys share pooled etcd leases, so ask about each lease once.
    const ttls = new Map<string, Promise<number | null>>();
    const ttlOf = (lease: string): Promise<number | null> => {
      let ttl = ttls.get(lease);
      if (ttl === undefined) ttls.set(lease, (ttl = this.ttlRemainingMs(lease)));
      return ttl;
    };
    return Promise.all(
      kvs.map(async (kv) => ({
        key: this.keyOf(kv),
        owner: kv.value.toString('utf8'),
        fencingToken: kv.mod_revision,
        ttlRemainingMs: await ttlOf(kv.lease),
      })),
    );
  }

  private async ttlRemainingMs(lease: string): Promise<number | null> {
    if (lease === '0') return null;
    const res = await this.call('leaseTimeToLive', (deadline) => this.client.leaseClient.leaseTimeToLive({ ID: lease }, { deadline }));
    // -1: the lease is gone and its keys are being deleted.
    return Math.max(0, Number(res.TTL)) * 1000;
  }

  private call<T>(operation: string, attempt: (deadline: Date) => Promise<T>): Promise<T> {
    return this.runner.run(operation, { deadlineMs: this.settings.timeoutMs }, ({ deadline }) => attempt(deadline));
  }
}
