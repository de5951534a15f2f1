import type { LeaseOpKind, OpOutcome, RecordedOp } from './types.js';

/**
 * The one clock of a recorded run: milliseconds since the epoch, read from the monotonic clock.
 * Every process on one machine agrees on it (same CLOCK_MONOTONIC, each with its own time origin),
 * and it never steps, so belief windows of clients in different processes compare.
 */
export const machineClock = (): number => performance.timeOrigin + performance.now();

/** The calls a recorder makes: Mastra's LeaseProvider, and `getLease` where the provider has it. */
export interface RecordableProvider {
  acquireLease(key: string, owner: string, ttlMs: number): Promise<{ acquired: boolean; fencingToken?: string }>;
  renewLease(key: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(key: string, owner: string): Promise<void>;
  transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number): Promise<boolean>;
  getLease?(key: string, call?: { deadlineMs?: number }): Promise<{ owner: string; fencingToken: string } | undefined>;
}

/**
 * The token read after a renew may take this long at most: the renew is recorded as returning after the read,
 * and a slow read (a fault) must not push that return so late that the renew no longer counts.
 */
const TOKEN_READ_DEADLINE_MS = 500;

/**
 * Makes lease calls and records each as a RecordedOp: sent and returned on one clock, with its outcome
 * and fencing token. The history is built from what the calls answered, never from what the caller
 * thinks it holds.
 *
 * A renew answers only true/false, so after a `true` the recorder reads the key (`getLease`) and, if the
 * owner still holds it, records that token with the renew. The read belongs to the renew's flight (its
 * `returnedAt` is taken after the read): the token is the key's revision at some moment before that
 * return, so it is at least the renew's own write and never larger than what a call sent after the
 * return can see — which is what the fencing check compares.
 */
export class Recorder {
  constructor(
    readonly client: string,
    private readonly provider: RecordableProvider,
    private readonly sink: (op: RecordedOp) => void,
    private readonly now: () => number = machineClock,
  ) {}

  /** true: acquired; false: someone else holds it; undefined: the call threw. */
  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean | undefined> {
    const sentAt = this.now();
    try {
      const result = await this.provider.acquireLease(key, owner, ttlMs);
      const token = result.acquired && result.fencingToken !== undefined ? { fencingToken: result.fencingToken } : {};
      this.push('acquire', key, owner, ttlMs, sentAt, result.acquired ? 'ok' : 'lost', token);
      return result.acquired;
    } catch {
      this.push('acquire', key, owner, ttlMs, sentAt, 'error');
      return undefined;
    }
  }

  async renew(key: string, owner: string, ttlMs: number): Promise<boolean | undefined> {
    const sentAt = this.now();
    let renewed: boolean;
    try {
      renewed = await this.provider.renewLease(key, owner, ttlMs);
    } catch {
      this.push('renew', key, owner, ttlMs, sentAt, 'error');
      return undefined;
    }
    const token = renewed ? await this.tokenOf(key, owner) : undefined;
    this.push('renew', key, owner, ttlMs, sentAt, renewed ? 'ok' : 'lost', token === undefined ? {} : { fencingToken: token });
    return renewed;
  }

  /** false when the call threw. */
  async release(key: string, owner: string): Promise<boolean> {
    const sentAt = this.now();
    try {
      await this.provider.releaseLease(key, owner);
      this.push('release', key, owner, 0, sentAt, 'ok');
      return true;
    } catch {
      this.push('release', key, owner, 0, sentAt, 'error');
      return false;
    }
  }

  async transfer(key: string, from: string, to: string, ttlMs: number): Promise<boolean | undefined> {
    const sentAt = this.now();
    try {
      const handed = await this.provider.transferLease(key, from, to, ttlMs);
      this.push('transfer', key, from, ttlMs, sentAt, handed ? 'ok' : 'lost', { toOwner: to });
      return handed;
    } catch {
      this.push('transfer', key, from, ttlMs, sentAt, 'error', { toOwner: to });
      return undefined;
    }
  }

  private async tokenOf(key: string, owner: string): Promise<string | undefined> {
    if (this.provider.getLease === undefined) return undefined;
    try {
      const info = await this.provider.getLease(key, { deadlineMs: TOKEN_READ_DEADLINE_MS });
      return info?.owner === owner ? info.fencingToken : undefined;
    } catch {
      return undefined; // the renew stands; only its token is unknown
    }
  }

  private push(
    op: LeaseOpKind,
    key: string,
    owner: string,
    ttlMs: number,
    sentAt: number,
    outcome: OpOutcome,
    extra: Pick<RecordedOp, 'fencingToken' | 'toOwner'> = {},
  ): void {
    this.sink({ client: this.client, key, owner, op, ttlMs, sentAt, returnedAt: this.now(), outcome, ...extra });
  }
}
