/**
 * The LeaseProvider contract as a sequential model, for a TTL long enough that nothing expires during a
 * test: Mastra's in-memory anchor (`EventEmitterPubSub`'s lease methods) with time taken out.
 *
 * One documented deviation, `transferToHolderSucceeds`: this provider answers `true` to a transfer whose
 * `to` already holds the key (a retried transfer whose first attempt committed must not report failure);
 * the anchor answers `false` unless `from` holds it.
 */
export type LeaseOp =
  | { kind: 'acquire'; key: string; owner: string }
  | { kind: 'get'; key: string }
  | { kind: 'release'; key: string; owner: string }
  | { kind: 'renew'; key: string; owner: string }
  | { kind: 'transfer'; key: string; from: string; to: string };

export type LeaseOpResult = { acquired: boolean; owner: string } | string | undefined | boolean;

export class LeaseModel {
  private readonly holders = new Map<string, string>();

  constructor(private readonly options: { transferToHolderSucceeds: boolean }) {}

  apply(op: LeaseOp): LeaseOpResult {
    const holder = this.holders.get(op.key);
    switch (op.kind) {
      case 'acquire':
        if (holder !== undefined && holder !== op.owner) return { acquired: false, owner: holder };
        this.holders.set(op.key, op.owner);
        return { acquired: true, owner: op.owner };
      case 'get':
        return holder;
      case 'release':
        if (holder === op.owner) this.holders.delete(op.key);
        return undefined;
      case 'renew':
        return holder === op.owner;
      case 'transfer':
        if (holder === op.from) {
          this.holders.set(op.key, op.to);
          return true;
        }
        return this.options.transferToHolderSucceeds && holder === op.to;
    }
  }
}

/** The subset of a LeaseProvider a sequence runs against; `ttlMs` is the same for every call. */
export interface LeaseTarget {
  acquireLease(key: string, owner: string, ttlMs: number): Promise<{ acquired: boolean; owner?: string }>;
  getLeaseOwner(key: string): Promise<string | undefined>;
  releaseLease(key: string, owner: string): Promise<void>;
  renewLease(key: string, owner: string, ttlMs: number): Promise<boolean>;
  transferLease(key: string, from: string, to: string, ttlMs: number): Promise<boolean>;
}

/** Runs one op on a provider, reduced to what the model predicts (no fencing token, no TTL). */
export async function runOp(target: LeaseTarget, op: LeaseOp, ttlMs: number): Promise<LeaseOpResult> {
  switch (op.kind) {
    case 'acquire': {
      const result = await target.acquireLease(op.key, op.owner, ttlMs);
      return { acquired: result.acquired, owner: result.owner as string };
    }
    case 'get':
      return target.getLeaseOwner(op.key);
    case 'release':
      await target.releaseLease(op.key, op.owner);
      return undefined;
    case 'renew':
      return target.renewLease(op.key, op.owner, ttlMs);
    case 'transfer':
      return target.transferLease(op.key, op.from, op.to, ttlMs);
  }
}

/** A copy of `op` with its key mapped (to give each sequence keys of its own). */
export function withKey(op: LeaseOp, key: (k: string) => string): LeaseOp {
  return { ...op, key: key(op.key) };
}
