import { EtcdUnavailableError } from '../../src/errors/unavailable.js';
import { LeaseObserver } from '../../src/metrics/observer.js';
import type { AcquireDecision } from '../../src/results.js';
import { LeaseClock } from '../../src/clock/lease-clock.js';
import type { KeyWatch, KeyWatchEvent } from '../../src/waiting/key-watch.js';
import type { LeaseOps } from '../../src/waiting/lease-ops.js';
import { Lifecycle } from '../../src/waiting/lifecycle.js';
import { POLICY } from '../../src/policy.js';
import { waitFor } from './wait.js';

/** Test double of one step: `hold()` makes the next call of that kind wait until `release()`. */
interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

interface FakeWatch {
  key: string;
  startRevision: string | undefined;
  connected: boolean;
  closed: boolean;
  emit(event: KeyWatchEvent): void;
}

/**
 * An in-memory single-key store with etcd's revision semantics and watches, behind the `LeaseOps`
 * interface. Watches connect only when the test says so (`connectWatches`), to reproduce the gap
 * between a lost attempt and a watch's start.
 */
export class FakeLeaseStore {
  revision = 10;
  readonly values = new Map<string, { owner: string; modRevision: string }>();
  readonly watches: FakeWatch[] = [];
  readonly calls: string[] = [];
  /** Next acquire(s) wait for this gate before applying. */
  acquireGate: Gate | undefined;
  renewGate: Gate | undefined;
  /** Next acquire applies its write, then throws a retryable error (an ambiguous failure). */
  failAcquireAfterCommit = 0;
  renewAnswer: boolean | undefined;
  readonly lifecycle = new Lifecycle();
  readonly ops: LeaseOps;

  constructor(observer = new LeaseObserver({ logger: {} }), clock = new LeaseClock()) {
    this.ops = {
      acquire: (key, owner) => this.acquire(key, owner),
      renew: (key, owner, _ttl, call) => this.renew(key, owner, call?.signal, call?.deadlineMs),
      release: async (key, owner) => {
        this.calls.push(`release ${owner}`);
        if (this.values.get(key)?.owner === owner) this.delete(key);
      },
      releaseWrite: async (key, owner, token) => {
        this.calls.push(`releaseWrite ${owner} ${token}`);
        const held = this.values.get(key);
        if (held?.owner === owner && held.modRevision === token) this.delete(key);
      },
      watch: (key, onEvent, startRevision) => this.watch(key, onEvent, startRevision),
      clock,
      deadlineMs: 5000,
      attemptTimeoutMs: () => POLICY.clockJump.renewMs / 2, // a cluster answering fast: the check gets its fixed bound
      lifecycle: this.lifecycle,
      observer,
      logger: {},
    };
  }

  holdAcquires(): () => void {
    const g = gate();
    this.acquireGate = g;
    return () => {
      this.acquireGate = undefined;
      g.open();
    };
  }

  holdRenews(): () => void {
    const g = gate();
    this.renewGate = g;
    return () => {
      this.renewGate = undefined;
      g.open();
    };
  }

  put(key: string, owner: string): string {
    const modRevision = String(++this.revision);
    this.values.set(key, { owner, modRevision });
    this.notify(key, { type: 'put', owner, revision: modRevision });
    return modRevision;
  }

  delete(key: string): void {
    if (!this.values.delete(key)) return;
    this.notify(key, { type: 'delete', revision: String(++this.revision) });
  }

  connectWatches(): void {
    for (const w of this.watches.filter((w) => !w.connected && !w.closed)) {
      w.connected = true;
      w.emit({ type: 'connected' });
    }
  }

  openWatches(): FakeWatch[] {
    return this.watches.filter((w) => !w.closed);
  }

  private async acquire(key: string, owner: string): Promise<AcquireDecision> {
    this.calls.push(`acquire ${owner}`);
    if (this.acquireGate) await this.acquireGate.promise;
    const held = this.values.get(key);
    let result: AcquireDecision;
    if (!held || held.owner === owner) result = { acquired: true, owner, fencingToken: this.put(key, owner) };
    else result = { acquired: false, owner: held.owner };
    if (this.failAcquireAfterCommit > 0) {
      this.failAcquireAfterCommit--;
      throw new EtcdUnavailableError('acquireLease', 1, 1, new Error('request timed out'));
    }
    return result;
  }

  private async renew(key: string, owner: string, signal: AbortSignal | undefined, deadlineMs: number | undefined): Promise<boolean> {
    this.calls.push(`renew ${owner}`);
    if (this.renewGate) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          this.renewGate.promise,
          new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('renew aborted')), { once: true })),
          // like the provider: a call that gets no answer fails (retryable) at its deadline
          new Promise((_, reject) => {
            if (deadlineMs !== undefined) timer = setTimeout(() => reject(new EtcdUnavailableError('renewLease', 1, deadlineMs, new Error('no answer'))), deadlineMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
    }
    if (this.renewAnswer !== undefined) return this.renewAnswer;
    if (this.values.get(key)?.owner !== owner) return false;
    this.put(key, owner);
    return true;
  }

  private watch(key: string, onEvent: (event: KeyWatchEvent) => void, startRevision?: string): KeyWatch {
    const w: FakeWatch = { key, startRevision, connected: false, closed: false, emit: onEvent };
    this.watches.push(w);
    return {
      close: () => {
        w.closed = true;
      },
    };
  }

  private notify(key: string, event: KeyWatchEvent): void {
    for (const w of this.watches) if (w.key === key && w.connected && !w.closed) w.emit(event);
  }
}

/** Resolves once `condition` holds, checking every 2 ms (fakes settle within a few macrotasks); rejects after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 2000, what = 'condition'): Promise<void> {
  await waitFor(what, condition, { timeoutMs, intervalMs: 2 });
}
