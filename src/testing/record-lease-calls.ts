import { machineClock, type RecordableProvider } from '../../safety-checker/recorder.js';
import type { LeaseOpKind, OpOutcome, RecordedOp } from '../../safety-checker/types.js';

export interface RecordLeaseCallsOptions {
  /** Names the calls of this wrapper in the history (one per process or client). @default 'client-1', 'client-2', … */
  client?: string;
  /**
   * Called with each record as its call returns: send them to the process that checks the history (a killed
   * process has sent everything up to its death). The records also collect in `history`.
   */
  onRecord?: (op: RecordedOp) => void;
  /**
   * The clock of every time recorded. The default is shared by every process on one machine (monotonic, with
   * epoch origin), so histories of several processes compare. @default machineClock
   */
  now?: () => number;
}

/** What `recordLeaseCalls` adds to the provider it wraps. */
export interface LeaseCallRecording {
  /** Every acquire, renew, release and transfer so far, in the order they returned. */
  readonly history: readonly RecordedOp[];
}

const RECORDED = new Set<PropertyKey>(['acquireLease', 'renewLease', 'releaseLease', 'transferLease']);
/** A renew's token is read right after it (see below); a slow read must not push the renew's return far out. */
const TOKEN_READ_DEADLINE_MS = 500;
let unnamed = 0;

/**
 * Wraps any lease provider — this package's, Mastra's in-memory one, one on Redis — so that every `acquireLease`,
 * `renewLease`, `releaseLease` and `transferLease` is recorded with its send and return time on one clock, its
 * outcome (`ok`, `lost`, or `error` when it threw: the write may have landed) and its fencing token. Everything else
 * (getLeaseOwner, close, …) passes through unrecorded. Calls behave exactly as the provider's: results and errors are
 * handed back unchanged. Give the wrapper to your app in place of the provider, then pass `history` (of every process)
 * to `checkLeaseHistory`.
 *
 * A renew answers true/false only; when the provider has `getLease` (this package's does), the token is read right
 * after a `true` and the renew counts as returned after that read, so its token is comparable with later calls.
 */
export function recordLeaseCalls<P extends RecordableProvider>(provider: P, options: RecordLeaseCallsOptions = {}): P & LeaseCallRecording {
  if (provider === null || typeof provider !== 'object') throw new TypeError(`provider must be a lease provider object, got ${provider === null ? 'null' : typeof provider}`);
  for (const method of RECORDED) {
    if (typeof (provider as unknown as Record<PropertyKey, unknown>)[method] !== 'function') {
      throw new TypeError(`provider.${String(method)} must be a function: recordLeaseCalls wraps a LeaseProvider`);
    }
  }
  const client = options.client ?? `client-${++unnamed}`;
  const now = options.now ?? machineClock;
  const history: RecordedOp[] = [];
  const push = (op: RecordedOp) => {
    history.push(op);
    options.onRecord?.(op);
  };
  const record = (op: LeaseOpKind, key: string, owner: string, ttlMs: number, sentAt: number, outcome: OpOutcome, extra: Pick<RecordedOp, 'fencingToken' | 'toOwner'> = {}) =>
    push({ client, key, owner, op, ttlMs, sentAt, returnedAt: now(), outcome, ...extra });

  async function tokenAfterRenew(key: string, owner: string): Promise<string | undefined> {
    if (typeof provider.getLease !== 'function') return undefined;
    try {
      const info = await provider.getLease(key, { deadlineMs: TOKEN_READ_DEADLINE_MS });
      return info?.owner === owner ? info.fencingToken : undefined;
    } catch {
      return undefined; // the renew stands; only its token is unknown
    }
  }

  const recorded = {
    async acquireLease(key: string, owner: string, ttlMs: number) {
      const sentAt = now();
      try {
        const result = await provider.acquireLease(key, owner, ttlMs);
        const token = result.acquired && result.fencingToken !== undefined ? { fencingToken: String(result.fencingToken) } : {};
        record('acquire', key, owner, ttlMs, sentAt, result.acquired ? 'ok' : 'lost', token);
        return result;
      } catch (error) {
        record('acquire', key, owner, ttlMs, sentAt, 'error');
        throw error;
      }
    },
    async renewLease(key: string, owner: string, ttlMs: number) {
      const sentAt = now();
      let renewed: boolean;
      try {
        renewed = await provider.renewLease(key, owner, ttlMs);
      } catch (error) {
        record('renew', key, owner, ttlMs, sentAt, 'error');
        throw error;
      }
      const token = renewed ? await tokenAfterRenew(key, owner) : undefined;
      record('renew', key, owner, ttlMs, sentAt, renewed ? 'ok' : 'lost', token === undefined ? {} : { fencingToken: token });
      return renewed;
    },
    async releaseLease(key: string, owner: string) {
      const sentAt = now();
      try {
        const result = await provider.releaseLease(key, owner);
        record('release', key, owner, 0, sentAt, 'ok');
        return result;
      } catch (error) {
        record('release', key, owner, 0, sentAt, 'error');
        throw error;
      }
    },
    async transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number) {
      const sentAt = now();
      try {
        const handed = await provider.transferLease(key, fromOwner, toOwner, ttlMs);
        record('transfer', key, fromOwner, ttlMs, sentAt, handed ? 'ok' : 'lost', { toOwner });
        return handed;
      } catch (error) {
        record('transfer', key, fromOwner, ttlMs, sentAt, 'error', { toOwner });
        throw error;
      }
    },
  };

  // A proxy, not a copy: the provider's other members (and its class, for instanceof) stay as they are. A pubsub that
  // carries its leases (EtcdPubSub, withEtcdLeases) hands the recorder out as its lease provider: Mastra asks for it.
  const proxy: P & LeaseCallRecording = new Proxy(provider, {
    get(target, property) {
      if (property === 'history') return history;
      if (property === 'getLeaseProvider' && typeof Reflect.get(target, property) === 'function') return () => proxy;
      if (RECORDED.has(property)) return recorded[property as keyof typeof recorded];
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as P & LeaseCallRecording;
  return proxy;
}
