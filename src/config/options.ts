import type { MeterProvider } from '@opentelemetry/api';
import type { Etcd3, IOptions } from 'etcd3';
import type { LeaseEventListener } from './events.js';

/** Where debug and warning messages go. Both methods are optional: a missing one is not called. */
export interface LeaseLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
}

/** Options of `new EtcdLeaseProvider(options)`. Validated once, in the constructor. */
export interface EtcdLeaseProviderOptions {
  /**
   * etcd client endpoints, e.g. `'127.0.0.1:2379'` or `['https://etcd-0:2379', …]`.
   * Exactly one of `hosts` and `client` must be given.
   */
  hosts?: string | string[];
  /**
   * An existing `Etcd3` client to use instead of `hosts`. It is not closed by `close()`,
   * and its own fault-handling policies stay as the caller configured them.
   */
  client?: Etcd3;
  /**
   * Every key the provider writes lies under this prefix.
   * @default 'mastra/lease/'
   */
  prefix?: string;
  /** etcd user name and password, passed to `etcd3` as they are. */
  auth?: IOptions['auth'];
  /** TLS material in `etcd3`'s shape (`rootCertificate`, `privateKey`, `certChain`). */
  credentials?: IOptions['credentials'];
  /**
   * Overall deadline of one call, retries included. A call that cannot complete in time
   * rejects with `EtcdUnavailableError`; it never reports a lease it did not get.
   * @default 5000
   */
  deadlineMs?: number;
  /**
   * Deadline of one attempt against one member. Shorter than `deadlineMs` so a hung member
   * (paused, blackholed) costs one attempt, not the whole call. It also bounds how long a proposal
   * dropped by a follower during a leader election (etcd does not answer those) holds a caller up.
   * @default 500
   */
  attemptTimeoutMs?: number;
  /**
   * Width of the lease-pool buckets: keys whose deadlines fall within this window share one etcd lease.
   * It is also the bound on the extra time a key may outlive its `ttlMs` by because of pooling.
   * @default 1000
   */
  leaseBucketMs?: number;
  /**
   * Largest number of operations one group-commit transaction carries (never more than etcd's default
   * `--max-txn-ops` of 128 admits with the nested transactions counted: 121 acquires). A batch is that large only
   * when that much work waits. Lowered automatically when the server answers with a smaller `--max-txn-ops`.
   * @default 128
   */
  maxBatchSize?: number;
  /**
   * Longest a `renewLease` may wait for other operations to share its etcd transaction; never more than a twentieth of
   * its TTL, nor past one attempt timeout before the lease it renews could end. Only renews wait. 0 turns it off.
   * @default 250
   */
  renewCoalesceMs?: number;
  /**
   * `getLeaseOwner` consistency: `'linearizable'` reads go through the leader's quorum;
   * `'serializable'` reads are answered by whichever member is asked, may be stale, and keep working
   * without quorum.
   * @default 'linearizable'
   */
  readConsistency?: 'linearizable' | 'serializable';
  /**
   * `true`: `acquireLease` resolves exactly `{ acquired, owner }`, the shape Mastra's contract states (its own tests
   * compare with deep equality). `false`: a winning acquire also carries its `fencingToken`; `getLease` has it
   * either way.
   * @default false
   */
  contractResults?: boolean;
  /**
   * Receives debug and warning messages, replacing the default. `{}` silences everything.
   * @default warnings to stderr, one line each (`etcd-lease-provider warn: …`); debug messages nowhere
   */
  logger?: LeaseLogger;
  /**
   * Called synchronously with every `LeaseEvent`: acquired, contended, lost, circuit state changes.
   * Events carry the key and owner. An exception it throws is logged and ignored.
   */
  onEvent?: LeaseEventListener;
  /**
   * Where the provider's OpenTelemetry metrics go (meter name `etcd-lease-provider`).
   * @default the global MeterProvider of `@opentelemetry/api` (a no-op until the application installs an SDK)
   */
  meterProvider?: MeterProvider;
}
