/**
 * The five methods of Mastra's `LeaseProvider` (`@mastra/core/events`, 1.46 and later), written out here so that the
 * root entry's types do not import `@mastra/core`: it is an optional peer, and a project without it must still
 * compile against `etcd-lease-provider` with `skipLibCheck: false`. Mastra detects a lease provider structurally
 * (`isLeaseProvider`: all five methods present), so a class with these methods is one. That `EtcdLeaseProvider` is
 * assignable to Mastra's own interface is checked where the `/mastra` entry hands one to Mastra (`withEtcdLeases`).
 */
export interface LeaseProviderContract {
  acquireLease(key: string, owner: string, ttlMs: number): Promise<{ acquired: boolean; owner?: string }>;
  getLeaseOwner(key: string): Promise<string | undefined>;
  releaseLease(key: string, owner: string): Promise<void>;
  renewLease(key: string, owner: string, ttlMs: number): Promise<boolean>;
  transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number): Promise<boolean>;
}
