import type { MemberAddresses, MemberLayout } from '../layout.js';
import { identifyPeerBySenderUrl } from './peer-identity.js';
import { FaultProxy } from './tcp-proxy.js';

/** Faults that act on all of a member's traffic, client and peer alike. */
interface MemberFaults {
  readonly blackhole?: boolean;
  readonly latencyMs?: number;
}

const sourceName = (index: number) => `member-${index}`;

/**
 * The cluster's network: a client proxy and a peer proxy in front of every member. Members
 * advertise the proxy URLs (to clients and to each other), so every byte between members, and
 * between tests and members, crosses a proxy where faults can be injected.
 */
export class FaultNetwork implements MemberAddresses {
  private constructor(
    private readonly clientProxies: readonly FaultProxy[],
    private readonly peerProxies: readonly FaultProxy[],
    private readonly clientScheme: 'http' | 'https',
  ) {}

  /** `clientScheme` only changes the URLs handed out: the proxies forward bytes, TLS included. */
  static async create(members: readonly MemberLayout[], clientScheme: 'http' | 'https' = 'http'): Promise<FaultNetwork> {
    // Filled once the peer proxies have ports; identification only runs on later connections.
    const sourceByPeerUrl = new Map<string, string>();
    const identifySource = identifyPeerBySenderUrl((url) => sourceByPeerUrl.get(url));
    const proxies: FaultProxy[] = [];
    try {
      const clientProxies: FaultProxy[] = [];
      const peerProxies: FaultProxy[] = [];
      for (const member of members) {
        const ports = member.proxyPorts;
        if (ports === undefined) throw new Error(`member ${member.name} has no proxy ports in its layout`);
        const client = await FaultProxy.listen({
          port: ports.client,
          targetPort: member.clientPort,
        });
        proxies.push(client);
        clientProxies.push(client);
        const peer = await FaultProxy.listen({
          port: ports.peer,
          targetPort: member.peerPort,
          identifySource,
        });
        proxies.push(peer);
        peerProxies.push(peer);
      }
      peerProxies.forEach((proxy, index) => sourceByPeerUrl.set(proxy.url, sourceName(index)));
      return new FaultNetwork(clientProxies, peerProxies, clientScheme);
    } catch (error) {
      await Promise.all(proxies.map((proxy) => proxy.close()));
      throw error;
    }
  }

  clientUrl(index: number): string {
    return `${this.clientScheme}://127.0.0.1:${this.clientProxies[index]!.port}`;
  }

  peerUrl(index: number): string {
    return this.peerProxies[index]!.url;
  }

  blackhole(index: number, on: boolean): void {
    this.setMemberFaults(index, { blackhole: on });
  }

  setLatency(index: number, latencyMs: number): void {
    this.setMemberFaults(index, { latencyMs });
  }

  /** Client side only: a peer stream losing bytes would just be torn down and redialled. */
  dropResponses(index: number, on: boolean): void {
    this.clientProxies[index]!.setFaults({ dropResponses: on });
  }

  heal(index: number): void {
    this.setMemberFaults(index, { blackhole: false, latencyMs: 0 });
    this.dropResponses(index, false);
  }

  async close(): Promise<void> {
    await Promise.all([...this.clientProxies, ...this.peerProxies].map((proxy) => proxy.close()));
  }

  /**
   * A member's faults apply on three kinds of path: clients into it, peers into it (its
   * peer proxy), and it into peers (every other peer proxy, for connections it opened).
   */
  private setMemberFaults(index: number, faults: MemberFaults): void {
    this.clientProxies[index]!.setFaults(faults);
    this.peerProxies.forEach((proxy, other) => {
      if (other === index) proxy.setFaults(faults);
      else proxy.setSourceFaults(sourceName(index), faults);
    });
  }
}
