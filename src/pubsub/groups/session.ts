import type { ILeaseKeepAliveRequest, ILeaseKeepAliveResponse } from 'etcd3';
import type { LeaseLogger } from '../../config/options.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import { POLICY } from '../../policy.js';
import type { CallScope } from '../../transport/call-scope.js';
import { leaveStream, type GrpcDuplex } from '../watch/watch-stream.js';

type KeepAliveStream = GrpcDuplex<ILeaseKeepAliveRequest>;

interface SessionListener {
  /** The session lease is gone or cannot be shown alive: this process's member keys are (or will soon be) gone. */
  lost(): void;
  /** A new session lease exists: register again on it. */
  renewed(leaseId: string): void;
}

/**
 * The etcd lease that keeps this process's consumer-group member keys alive, granted at the first group subscribe
 * and kept alive over a LeaseKeepAlive stream every TTL/3 (keep-alives are not Raft writes).
 *
 * It counts as lost locally at *send time of the last answered keep-alive + TTL* — the earliest moment etcd may have
 * expired it — not after 2×TTL as etcd3's own `Lease` notices. Then a new lease is granted (retried until it works)
 * and listeners register again on it; the claims of the old membership are taken over by the group meanwhile.
 */
export class Session {
  private leaseId: string | undefined;
  private granting: Promise<string> | undefined;
  private stream: KeepAliveStream | undefined;
  private readonly sentAt: number[] = [];
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private lossTimer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<SessionListener>();
  private closed = false;

  constructor(
    private readonly core: EtcdCore,
    private readonly ttlMs: number,
    private readonly logger: LeaseLogger,
  ) {}

  /** The live session lease, granted first if there is none (within `scope`). */
  async lease(scope: CallScope): Promise<string> {
    if (this.leaseId) return this.leaseId;
    this.granting ??= this.grant(scope).finally(() => (this.granting = undefined));
    return scope.race(this.granting);
  }

  listen(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A write found the lease unknown to etcd: treat it as lost at once. */
  invalidate(leaseId: string): void {
    if (leaseId === this.leaseId) this.lose('etcd no longer knows the session lease');
  }

  /** Revokes the lease (deleting every member key in one write), best effort within `deadlineMs`. */
  async close(deadlineMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const leaseId = this.leaseId;
    this.stop();
    if (!leaseId || this.core.lifetime.aborted) return;
    try {
      await this.core.runner.run('revokeSession', this.core.budget(deadlineMs), ({ deadline }) =>
        this.core.client.leaseClient.leaseRevoke({ ID: leaseId }, { deadline }),
      );
    } catch (error) {
      this.logger.debug?.('session lease revoke failed; it expires by its TTL', { error });
    }
  }

  private async grant(scope: CallScope): Promise<string> {
    const { client, runner } = this.core;
    const ttlSeconds = Math.ceil(this.ttlMs / 1000);
    const sentAt = this.core.clock.now();
    const res = await runner.attempts(scope, ({ deadline }) => client.leaseClient.leaseGrant({ TTL: ttlSeconds }, { deadline }));
    if (this.closed) {
      void client.leaseClient.leaseRevoke({ ID: res.ID }).catch(() => {});
      throw new Error('session closed');
    }
    this.leaseId = res.ID;
    this.sentAt.length = 0;
    this.armLoss(sentAt);
    this.keepAliveTimer = setInterval(() => this.keepAlive(), Math.max(100, Math.floor(this.ttlMs / 3)));
    this.keepAliveTimer.unref();
    this.openStream();
    return res.ID;
  }

  private keepAlive(): void {
    const leaseId = this.leaseId;
    if (!leaseId) return;
    if (!this.stream) return this.openStream(); // this tick's keep-alive goes out on the next one
    this.sentAt.push(this.core.clock.now());
    this.stream.write({ ID: leaseId });
  }

  private opening = false;

  private openStream(): void {
    if (this.opening) return;
    this.opening = true;
    void this.core.client.leaseClient.leaseKeepAlive().then(
      (raw) => {
        this.opening = false;
        const stream = raw as unknown as KeepAliveStream;
        if (this.closed) return leaveStream(stream);
        this.stream = stream;
        this.sentAt.length = 0;
        stream.on('data', (res: ILeaseKeepAliveResponse) => this.answered(res));
        const lost = () => {
          if (this.stream !== stream) return;
          this.stream = undefined; // the next keep-alive opens a new one; the loss timer covers the gap
        };
        stream.on('error', lost);
        stream.on('end', lost);
      },
      () => (this.opening = false),
    );
  }

  private answered(res: ILeaseKeepAliveResponse): void {
    const sentAt = this.sentAt.shift();
    if (res.ID !== this.leaseId || sentAt === undefined) return;
    if (Number(res.TTL) <= 0) return this.lose('etcd says the session lease expired');
    this.armLoss(sentAt);
  }

  /** The lease is alive until at least `sentAt + TTL`: past that, without a newer answer, count it lost. */
  private armLoss(sentAt: number): void {
    clearTimeout(this.lossTimer);
    this.lossTimer = setTimeout(() => this.lose('no keep-alive answered within the session TTL'), Math.max(0, sentAt + this.ttlMs - this.core.clock.now()));
    this.lossTimer.unref();
  }

  private lose(why: string): void {
    if (!this.leaseId || this.closed) return;
    this.logger.warn?.('consumer-group session lost; registering again', { why, lease: this.leaseId });
    this.stop();
    for (const listener of this.listeners) listener.lost();
    void this.regrant();
  }

  private async regrant(): Promise<void> {
    let delay: number = POLICY.errorBackoff.firstMs;
    while (!this.closed && !this.core.lifetime.aborted) {
      const scope = this.core.runner.open('grantSession', this.core.budget());
      try {
        const leaseId = await this.lease(scope);
        for (const listener of this.listeners) listener.renewed(leaseId);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        delay = Math.min(POLICY.errorBackoff.maxMs, delay * 2);
      } finally {
        scope.dispose();
      }
    }
  }

  private stop(): void {
    this.leaseId = undefined;
    clearInterval(this.keepAliveTimer);
    clearTimeout(this.lossTimer);
    this.keepAliveTimer = undefined;
    const stream = this.stream;
    this.stream = undefined;
    if (stream) leaveStream(stream);
  }
}
