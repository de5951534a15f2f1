import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';

/**
 * Questions asked of ONE member on its own endpoint, through a fresh etcd3 client that is closed
 * right after: a long-lived gRPC channel to a member that was killed and restarted would sit in
 * its reconnect backoff and report the member down long after it is back.
 */
async function ask<T>(endpoint: string, question: (client: Etcd3, deadline: Date) => Promise<T>, timeoutMs: number): Promise<T | undefined> {
  const client = new Etcd3({ hosts: [endpoint], dialTimeout: timeoutMs, faultHandling: { global: noop, host: () => noop } });
  try {
    return await question(client, new Date(Date.now() + timeoutMs));
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

export interface MemberStatus {
  /** uint64 ids as decimal strings: compare, never do arithmetic. */
  readonly memberId: string;
  /** '0' while the member knows no leader. */
  readonly leaderId: string;
}

export function memberStatus(endpoint: string, timeoutMs: number): Promise<MemberStatus | undefined> {
  return ask(
    endpoint,
    async (client, deadline) => {
      const status = await client.maintenance.status({ deadline });
      return { memberId: status.header.member_id, leaderId: status.leader };
    },
    timeoutMs,
  );
}

/** True when the member answers a linearizable read: it has a leader and a quorum behind it. */
export async function memberServes(endpoint: string, timeoutMs: number): Promise<boolean> {
  const served = await ask(endpoint, (client, deadline) => client.kv.range({ key: Buffer.from('etcd-lease-demo/health') }, { deadline }), timeoutMs);
  return served !== undefined;
}
