import { EtcdLeaseProvider } from '../../src/index.js';
import type { LeaseOpKind, RecordedOp } from '../../history/types.js';

export interface WorkloadOptions {
  endpoints: string[];
  prefix: string;
  workers: number;
  keys: string[];
  ttlMs: number;
  /** Clock shared by every worker: all belief windows are compared on it. */
  now?: () => number;
}

export interface RunningWorkload {
  /** Stops every worker after its current call and resolves with the whole history. */
  stop(): Promise<RecordedOp[]>;
  readonly history: RecordedOp[];
}

/**
 * Several independent clients — each its own EtcdLeaseProvider with its own etcd connection —
 * contending for a handful of keys the way Mastra's runtime does: acquire, renew every ttl/3,
 * sometimes hand the key to a follow-up run of the same worker with transferLease, sometimes release.
 * Every call is recorded with its send and return time; belief windows are derived from that record,
 * not from what the worker thinks.
 */
export function startWorkload(options: WorkloadOptions): RunningWorkload {
  const now = options.now ?? (() => performance.now());
  const history: RecordedOp[] = [];
  let stopped = false;
  const providers = Array.from(
    { length: options.workers },
    () => new EtcdLeaseProvider({ hosts: options.endpoints, prefix: options.prefix }) // the defaults are what is measured,
  );

  const record = async <T>(
    client: string,
    key: string,
    owner: string,
    op: LeaseOpKind,
    call: () => Promise<T>,
    judge: (value: T) => Pick<RecordedOp, 'outcome' | 'fencingToken'>,
    toOwner?: string,
  ): Promise<T | undefined> => {
    const sentAt = now();
    try {
      const value = await call();
      history.push({ client, key, owner, op, ttlMs: options.ttlMs, sentAt, returnedAt: now(), ...(toOwner ? { toOwner } : {}), ...judge(value) });
      return value;
    } catch {
      history.push({ client, key, owner, op, ttlMs: options.ttlMs, sentAt, returnedAt: now(), outcome: 'error', ...(toOwner ? { toOwner } : {}) });
      return undefined;
    }
  };

  const worker = async (index: number): Promise<void> => {
    const p = providers[index]!;
    const client = `worker-${index}`;
    let run = 0;
    const ttl = options.ttlMs;
    // What this worker believes it holds: key -> { owner, validUntil } (send time of last success + ttl).
    const held = new Map<string, { owner: string; validUntil: number }>();
    while (!stopped) {
      const key = options.keys[Math.floor(Math.random() * options.keys.length)]!;
      const mine = held.get(key);
      if (mine && mine.validUntil <= now()) held.delete(key);
      const current = held.get(key);
      if (!current) {
        const owner = `${client}/run-${++run}`;
        const sentAt = now();
        const r = await record(client, key, owner, 'acquire', () => p.acquireLease(key, owner, ttl), (v) => ({
          outcome: v.acquired ? 'ok' : 'lost',
          ...(v.acquired && v.fencingToken ? { fencingToken: v.fencingToken } : {}),
        }));
        if (r?.acquired) held.set(key, { owner, validUntil: sentAt + ttl });
      } else {
        const dice = Math.random();
        const sentAt = now();
        if (dice < 0.7) {
          const ok = await record(client, key, current.owner, 'renew', () => p.renewLease(key, current.owner, ttl), (v) => ({ outcome: v ? 'ok' : 'lost' }));
          if (ok) held.set(key, { owner: current.owner, validUntil: sentAt + ttl });
          else held.delete(key);
        } else if (dice < 0.85) {
          const next = `${client}/run-${++run}`;
          const ok = await record(client, key, current.owner, 'transfer', () => p.transferLease(key, current.owner, next, ttl), (v) => ({ outcome: v ? 'ok' : 'lost' }), next);
          if (ok) held.set(key, { owner: next, validUntil: sentAt + ttl });
          else held.delete(key);
        } else {
          held.delete(key); // belief ends when the release is sent
          await record(client, key, current.owner, 'release', () => p.releaseLease(key, current.owner), () => ({ outcome: 'ok' }));
        }
      }
      // Pace: each worker makes a call every ~ttl/10, so every held key is renewed well within ttl/3.
      await new Promise((r) => setTimeout(r, ttl / 10 / options.keys.length + Math.random() * 20));
    }
  };

  const running = providers.map((_, i) => worker(i));
  return {
    history,
    async stop() {
      stopped = true;
      await Promise.all(running);
      await Promise.all(providers.map((p) => p.close()));
      return history;
    },
  };
}
