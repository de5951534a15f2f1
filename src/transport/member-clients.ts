import type { Etcd3 } from 'etcd3';

/**
 * One client per member, each talking to that member alone with no fault handling of its own, built on first use and
 * shared by what asks a member about itself rather than sending user work: the member probes (member-probes.ts) and
 * the leader finder (leader-finder.ts). `close()` closes every one of them.
 */
export class MemberClients {
  private readonly clients = new Map<string, Etcd3>();
  private closed = false;

  constructor(private readonly build: (endpoint: string) => Etcd3) {}

  /** The client of `endpoint`; undefined once closed. */
  of(endpoint: string): Etcd3 | undefined {
    if (this.closed) return undefined;
    let client = this.clients.get(endpoint);
    if (client === undefined) this.clients.set(endpoint, (client = this.build(endpoint)));
    return client;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
