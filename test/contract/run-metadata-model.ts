import type { LeaseRecordProvider } from '../../src/mastra/lease-record-provider.js';
import type { LeaseRecord } from '../../src/results.js';

interface Held {
  owner: string;
  metadata: string | undefined;
  expiresAt: number;
}

/**
 * The run-metadata extension as a few lines of in-memory code — the semantics a closed proposal for Mastra's Redis
 * backend pinned in its tests: the holder is an owner plus optional run metadata, compared with `===`
 * (`undefined` matches only a lease stored without), the owner is never parsed, and a record without metadata has
 * no `metadata` key. 1.71's EventEmitterPubSub has no metadata, so this model is the anchor the contract suite's
 * metadata variant is checked against, beside the real provider.
 *
 * One deliberate choice, shared with EtcdLeaseProvider (docs/design.md#contract): a transfer whose `to` (with
 * `toMetadata`) already holds the key answers true and refreshes it — what a retried transfer must report.
 */
export class RunMetadataModel implements LeaseRecordProvider {
  private readonly leases = new Map<string, Held>();

  async acquireLease(key: string, owner: string, ttlMs: number, metadata?: string): Promise<{ acquired: boolean; owner?: string }> {
    const held = this.live(key);
    if (held !== undefined && !matches(held, owner, metadata)) return { acquired: false, owner: held.owner };
    this.hold(key, owner, metadata, ttlMs);
    return { acquired: true, owner };
  }

  async getLeaseOwner(key: string): Promise<string | undefined> {
    return this.live(key)?.owner;
  }

  async getLeaseRecord(key: string): Promise<LeaseRecord | undefined> {
    const held = this.live(key);
    if (held === undefined) return undefined;
    return held.metadata === undefined ? { owner: held.owner } : { owner: held.owner, metadata: held.metadata };
  }

  async releaseLease(key: string, owner: string, metadata?: string): Promise<void> {
    const held = this.live(key);
    if (held !== undefined && matches(held, owner, metadata)) this.leases.delete(key);
  }

  async renewLease(key: string, owner: string, ttlMs: number, metadata?: string): Promise<boolean> {
    const held = this.live(key);
    if (held === undefined || !matches(held, owner, metadata)) return false;
    this.hold(key, owner, metadata, ttlMs);
    return true;
  }

  async transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number, fromMetadata?: string, toMetadata?: string): Promise<boolean> {
    const held = this.live(key);
    if (held === undefined) return false;
    if (!matches(held, fromOwner, fromMetadata) && !matches(held, toOwner, toMetadata)) return false;
    this.hold(key, toOwner, toMetadata, ttlMs);
    return true;
  }

  private live(key: string): Held | undefined {
    const held = this.leases.get(key);
    if (held !== undefined && held.expiresAt <= performance.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return held;
  }

  private hold(key: string, owner: string, metadata: string | undefined, ttlMs: number): void {
    this.leases.set(key, { owner, metadata, expiresAt: performance.now() + ttlMs });
  }
}

function matches(held: Held, owner: string, metadata: string | undefined): boolean {
  return held.owner === owner && held.metadata === metadata;
}
