import { setTimeout as sleep } from 'node:timers/promises';
import { isLeaseError } from '../../src/errors/lease-error.js';
import type { LeaseOpKind, OpOutcome } from '../../safety-checker/types.js';
import { EtcdLeaseProvider } from '../../src/provider.js';
import { clientOptions } from '../connection.js';
import { ownerToken } from './owner-token.js';
import { now, type DemoOp, type ParentMessage, type WorkerConfig, type WorkerMessage } from './worker-protocol.js';

const FLUSH_EVERY_MS = 200;

/**
 * Entry of a worker process (`etcd-lease __demo-worker`, forked by the demo with an IPC channel).
 * Waits for its config, contends for thread keys until told to stop, ships every recorded op to
 * the parent, and exits. Ctrl-C reaches the whole process group, so SIGINT is ignored here: the
 * parent decides when workers stop, and they must first release what they hold.
 */
export async function runWorker(): Promise<number> {
  if (process.send === undefined) {
    process.stderr.write('etcd-lease: __demo-worker is internal to `etcd-lease demo`\n');
    return 2;
  }
  process.on('SIGINT', () => {});
  const send = (message: WorkerMessage): void => {
    if (process.connected) process.send?.(message);
  };
  const config = await new Promise<WorkerConfig>((resolve) => {
    process.once('message', (message: ParentMessage) => {
      if (message.type === 'start') resolve(message.config);
    });
  });
  const worker = new DemoWorker(config, send);
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'stop') worker.stop();
  });
  // Parent gone: nobody will read the history, but the leases should still be given back.
  process.on('disconnect', () => worker.stop());
  try {
    send({ type: 'ready' });
    await worker.run();
    send({ type: 'done' });
    return 0;
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    return 1;
  } finally {
    process.disconnect?.();
  }
}

interface Called<T> {
  readonly outcome: OpOutcome;
  readonly sentAt: number;
  readonly value?: T;
}

/**
 * Uses leases the way Mastra's thread runtime does: a run acquires its thread's key, renews it
 * every ttl/3 while it works, and at the end either hands the thread to its queued follow-up run
 * with transferLease or releases it. Losers move on to another thread.
 *
 * A holder stops acting as owner once (send time of its last successful acquire/renew) + ttl has
 * passed without a new success — the same rule the overlap checker uses for belief windows.
 */
class DemoWorker {
  private readonly provider: EtcdLeaseProvider;
  private readonly stopping = new AbortController();
  private readonly held = new Set<string>();
  private readonly pending: DemoOp[] = [];
  private runs = 0;

  constructor(
    private readonly config: WorkerConfig,
    private readonly send: (message: WorkerMessage) => void,
  ) {
    const { connection, ttlMs } = config;
    this.provider = new EtcdLeaseProvider({
      hosts: connection.hosts,
      prefix: connection.prefix,
      // A renew must give up in time for the next one: a call that hangs past ttl/3 is worth nothing.
      deadlineMs: Math.max(1000, Math.min(connection.timeoutMs, ttlMs / 3)),
      ...clientOptions(connection),
    });
  }

  stop(): void {
    this.stopping.abort();
  }

  async run(): Promise<void> {
    const flusher = setInterval(() => this.flush(), FLUSH_EVERY_MS);
    const holders = new Set<Promise<void>>();
    try {
      while (!this.stopped) {
        const key = this.pickFreeKey();
        if (key === undefined) {
          await this.pause(100, 300);
          continue;
        }
        const owner = this.newOwner();
        const acquired = await this.acquire(key, owner);
        if (acquired !== undefined) {
          this.held.add(key);
          const holder: Promise<void> = this.hold(key, owner, acquired.sentAt).finally(() => {
            this.held.delete(key);
            holders.delete(holder);
          });
          holders.add(holder);
        }
        await this.pause(50, 250);
      }
      await Promise.all(holders);
    } finally {
      clearInterval(flusher);
      this.flush();
      await this.provider.close();
    }
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Acquire; an error is retried once with the same owner (idempotent: a committed first try reports ok). */
  private async acquire(key: string, owner: string): Promise<Called<unknown> | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const called = await this.call('acquire', key, owner, undefined, () => this.provider.acquireLease(key, owner, this.config.ttlMs), (r) => ({
        ok: r.acquired,
        fencingToken: r.fencingToken,
      }));
      if (called.outcome === 'ok') return called;
      if (called.outcome === 'lost' || this.stopped) return undefined;
    }
    return undefined;
  }

  private async hold(key: string, firstOwner: string, acquiredSentAt: number): Promise<void> {
    const { ttlMs } = this.config;
    const renewEvery = ttlMs / 3;
    let owner = firstOwner;
    let lastOkSentAt = acquiredSentAt;
    let nextRenewAt = acquiredSentAt + renewEvery;
    let turnEnd = now() + between(1000, 4000);
    let followUps = 0;

    while (true) {
      await this.sleepUntil(Math.min(turnEnd, nextRenewAt));
      if (this.stopped) return this.release(key, owner);
      if (now() >= lastOkSentAt + ttlMs) return; // no longer entitled to believe: abandon silently
      if (now() >= turnEnd) {
        if (followUps < 2 && Math.random() < 0.5) {
          const next = this.newOwner();
          const handed = await this.transfer(key, owner, next, lastOkSentAt);
          if (handed === undefined) {
            // Stopped while a transfer was in doubt: either run may hold the key now; give it back either way.
            if (this.stopped) await Promise.all([this.release(key, owner), this.release(key, next)]);
            return;
          }
          owner = next;
          lastOkSentAt = handed.sentAt;
          nextRenewAt = handed.sentAt + renewEvery;
          turnEnd = now() + between(1000, 4000);
          followUps++;
          continue;
        }
        return this.release(key, owner);
      }
      const renewed = await this.call('renew', key, owner, undefined, () => this.provider.renewLease(key, owner, ttlMs), (ok) => ({ ok }));
      if (renewed.outcome === 'lost') return;
      if (renewed.outcome === 'ok') {
        lastOkSentAt = renewed.sentAt;
        nextRenewAt = renewed.sentAt + renewEvery;
      } else {
        nextRenewAt = now() + 250; // try again soon: the lease runs out at lastOkSentAt + ttl
      }
    }
  }

  /** Hands the thread to a follow-up run. Retried on errors while the old run may still believe it owns it. */
  private async transfer(key: string, from: string, to: string, lastOkSentAt: number): Promise<Called<boolean> | undefined> {
    while (!this.stopped && now() < lastOkSentAt + this.config.ttlMs) {
      const called = await this.call('transfer', key, from, to, () => this.provider.transferLease(key, from, to, this.config.ttlMs), (ok) => ({
        ok,
      }));
      if (called.outcome === 'ok') return called;
      if (called.outcome === 'lost') return undefined;
      await sleep(200);
    }
    return undefined;
  }

  private async release(key: string, owner: string): Promise<void> {
    const released = await this.call('release', key, owner, undefined, () => this.provider.releaseLease(key, owner), () => ({ ok: true }));
    // One resend is safe (compare-and-delete on the owner) and usually enough after a failover.
    if (released.outcome === 'error') {
      await this.call('release', key, owner, undefined, () => this.provider.releaseLease(key, owner), () => ({ ok: true }));
    }
  }

  private async call<T>(
    op: LeaseOpKind,
    key: string,
    owner: string,
    toOwner: string | undefined,
    invoke: () => Promise<T>,
    judge: (value: T) => { ok: boolean; fencingToken?: string | undefined },
  ): Promise<Called<T>> {
    const base = { client: this.config.workerId, key, owner, op, ttlMs: this.config.ttlMs };
    const withTo = toOwner === undefined ? base : { ...base, toOwner };
    const sentAt = now();
    try {
      const value = await invoke();
      const returnedAt = now();
      const verdict = judge(value);
      const outcome: OpOutcome = verdict.ok ? 'ok' : 'lost';
      const recorded: DemoOp =
        verdict.fencingToken === undefined
          ? { ...withTo, sentAt, returnedAt, outcome }
          : { ...withTo, sentAt, returnedAt, outcome, fencingToken: verdict.fencingToken };
      this.pending.push(recorded);
      return { outcome, sentAt, value };
    } catch (error) {
      const returnedAt = now();
      const errorCode = isLeaseError(error) ? error.code : error instanceof Error ? error.name : 'unknown';
      this.pending.push({ ...withTo, sentAt, returnedAt, outcome: 'error', errorCode });
      return { outcome: 'error', sentAt };
    }
  }

  private flush(): void {
    if (this.pending.length > 0) this.send({ type: 'ops', ops: this.pending.splice(0) });
  }

  private pickFreeKey(): string | undefined {
    const free = this.config.keys.filter((k) => !this.held.has(k));
    if (this.held.size >= this.config.maxHeld || free.length === 0) return undefined;
    return free[Math.floor(Math.random() * free.length)];
  }

  private newOwner(): string {
    return ownerToken(this.config.workerId, ++this.runs);
  }

  private async pause(minMs: number, maxMs: number): Promise<void> {
    await this.sleepUntil(now() + between(minMs, maxMs));
  }

  /** Sleeps until `at` on the demo clock, or until stop() — whichever comes first. */
  private async sleepUntil(at: number): Promise<void> {
    const ms = at - now();
    if (ms <= 0 || this.stopped) return;
    await sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }
}

function between(min: number, max: number): number {
  return min + Math.random() * (max - min);
}
