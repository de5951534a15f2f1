import type { DemoOp } from './worker-protocol.js';

export interface KeyView {
  owner: string | undefined;
  fencingToken: string | undefined;
  /** Send time of the owner's last successful acquire/renew/transfer-in: it believes until this + ttl. */
  believedUntil: number;
}

/**
 * What the live view shows, folded from the ops the workers report. Display only: ops from
 * different workers arrive in batches, slightly out of order, and a loser's view of the holder is
 * not recorded — the verdict at the end comes from the full history, never from this.
 */
export class LiveState {
  readonly keys = new Map<string, KeyView>();
  readonly errorCodes = new Map<string, number>();
  total = 0;
  errors = 0;
  /** Acquires etcd answered "held by another owner": contention, what several workers on few keys cause. */
  contended = 0;
  /** Renews and transfers etcd refused: the lease had ended or passed to another owner (a real loss). */
  refused = 0;
  private readonly returns: number[] = [];

  constructor(keys: readonly string[]) {
    for (const key of keys) this.keys.set(key, { owner: undefined, fencingToken: undefined, believedUntil: 0 });
  }

  apply(ops: readonly DemoOp[]): void {
    for (const op of [...ops].sort((a, b) => a.returnedAt - b.returnedAt)) {
      this.total++;
      this.returns.push(op.returnedAt);
      if (op.outcome === 'error') {
        this.errors++;
        const code = op.errorCode ?? 'error';
        this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1);
      }
      if (op.outcome === 'lost') {
        if (op.op === 'acquire') this.contended++;
        else this.refused++;
      }
      this.applyOwnership(op);
    }
  }

  /** Ops that returned in the `windowMs` before `at`, per second. */
  opsPerSecond(at: number, windowMs = 3000): number {
    while (this.returns.length > 0 && (this.returns[0] as number) < at - 60_000) this.returns.shift();
    return this.returns.filter((t) => t > at - windowMs && t <= at).length / (windowMs / 1000);
  }

  private applyOwnership(op: DemoOp): void {
    const view = this.keys.get(op.key);
    if (view === undefined) return;
    const free = (): void => {
      view.owner = undefined;
      view.fencingToken = undefined;
    };
    switch (op.op) {
      case 'acquire':
        if (op.outcome === 'ok') Object.assign(view, { owner: op.owner, fencingToken: op.fencingToken, believedUntil: op.sentAt + op.ttlMs });
        break;
      case 'renew':
        if (view.owner !== op.owner) break;
        if (op.outcome === 'ok') view.believedUntil = Math.max(view.believedUntil, op.sentAt + op.ttlMs);
        if (op.outcome === 'lost') free();
        break;
      case 'transfer':
        // A transfer reports no token: the new holder's is unknown until it is read.
        if (op.outcome === 'ok') Object.assign(view, { owner: op.toOwner, fencingToken: undefined, believedUntil: op.sentAt + op.ttlMs });
        break;
      case 'release':
        if (view.owner === op.owner) free();
        break;
    }
  }
}
