import type { Etcd3 } from 'etcd3';
import type { EndpointFailures } from './endpoint-failures.js';
import type { MemberClients } from './member-clients.js';
import type { MemberHealth } from './member-health.js';

interface MemberProbesOptions {
  readonly health: MemberHealth;
  /** A client per member, talking to that member only. */
  readonly clients: MemberClients;
  /** The key every probe reads: one the provider may read (its prefix). */
  readonly key: Buffer;
  /** Each step's deadline: the current (adaptive) attempt timeout, so a member as slow as the cluster is probed back. */
  readonly timeoutMs: () => number;
  readonly failures: EndpointFailures;
  /** Whether an error is a failure of the member (else it answered). */
  readonly countsAsFailure: (error: unknown) => boolean;
}

/**
 * Probes open members with requests of their own, so no user call is ever the one that finds out whether a member
 * is back. A probe has two steps on that member alone, each a count-only read of one key:
 * - serializable: answered from the member's own store, so it says whether the member's process answers at all. A
 *   hung member does not; a follower waiting for an election does (MemberHealth ranks it above the hung one);
 * - linearizable: answered only when the member reaches a leader and can serve (a ReadIndex round, no Raft write, no
 *   disk). Only this closes the circuit: a serializable read or a Status alone would answer from a member cut off
 *   from its peers — an isolated ex-leader with its clients attached — and close a circuit the next user attempt
 *   would open again.
 *
 * Probes start from the traffic itself (`runDue`, on every attempt's way to a member): an idle client probes
 * nothing and needs no timer; a busy one probes each open member at once and then every probe interval.
 */
export class MemberProbes {
  constructor(private readonly o: MemberProbesOptions) {}

  private get closed(): boolean {
    return this.o.clients.isClosed;
  }

  runDue(now: number): void {
    if (this.closed) return;
    for (const i of this.o.health.dueProbes(now)) void this.probe(i);
  }

  private async probe(i: number): Promise<void> {
    const { health } = this.o;
    const endpoint = health.endpoints[i]!;
    const client = this.o.clients.of(endpoint);
    if (client === undefined) return;
    const alive = await this.read(client, endpoint, true);
    if (this.closed) return;
    if (alive) health.probeFoundAlive(i);
    const serves = alive && (await this.read(client, endpoint, false));
    if (this.closed) return;
    if (serves) health.probeAnswered(i);
    else health.probeFailed(i, performance.now(), alive);
  }

  /** One step: whether the member answered (a result, or an error of etcd's own). */
  private async read(client: Etcd3, endpoint: string, serializable: boolean): Promise<boolean> {
    try {
      await client.kv.range({ key: this.o.key, count_only: true, serializable }, { deadline: Date.now() + this.o.timeoutMs() });
    } catch (error) {
      if (this.o.countsAsFailure(error)) {
        if (!this.closed) this.o.failures.failed(endpoint, error);
        return false;
      }
    }
    if (!this.closed) this.o.failures.answered(endpoint);
    return true;
  }
}
