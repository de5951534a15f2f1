import { EventEmitterPubSub } from '@mastra/core/events';
import type { LeaseProvider } from '@mastra/core/events';

export interface LeaseCall {
  method: keyof LeaseProvider;
  args: unknown[];
}

/** In-memory lease provider (Mastra's own `EventEmitterPubSub` map) that records every call. */
export class RecordingLeaseProvider implements LeaseProvider {
  readonly calls: LeaseCall[] = [];
  closed = 0;
  private readonly store = new EventEmitterPubSub();

  acquireLease(key: string, owner: string, ttlMs: number) {
    this.calls.push({ method: 'acquireLease', args: [key, owner, ttlMs] });
    return this.store.acquireLease(key, owner, ttlMs);
  }

  getLeaseOwner(key: string) {
    this.calls.push({ method: 'getLeaseOwner', args: [key] });
    return this.store.getLeaseOwner(key);
  }

  releaseLease(key: string, owner: string) {
    this.calls.push({ method: 'releaseLease', args: [key, owner] });
    return this.store.releaseLease(key, owner);
  }

  renewLease(key: string, owner: string, ttlMs: number) {
    this.calls.push({ method: 'renewLease', args: [key, owner, ttlMs] });
    return this.store.renewLease(key, owner, ttlMs);
  }

  transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number) {
    this.calls.push({ method: 'transferLease', args: [key, fromOwner, toOwner, ttlMs] });
    return this.store.transferLease(key, fromOwner, toOwner, ttlMs);
  }

  async close(): Promise<void> {
    this.closed += 1;
  }

  callsOf(method: keyof LeaseProvider): unknown[][] {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }
}
