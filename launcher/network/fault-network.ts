import type { MemberAddresses, MemberLayout } from '../layout.js';
import { clientProxyFaults, HEALTHY_MEMBER, peerProxyFaults, type MemberFaults, type NetworkFaults, type OneWayHold } from './fault-plan.js';
import { identifyPeerBySenderUrl } from './peer-identity.js';
import { FaultProxy } from './tcp-proxy.js';

const sourceName = (index: number) => `member-${index}`;

/**
 * The cluster's network: a client proxy and a peer proxy in front of every member. Members
 * advertise the proxy URLs (to clients and to each other), so every byte between members, and
 * between tests and members, crosses a proxy where faults can be injected.
 *
 * The faults are kept as one state (fault-plan.ts) and every change re-derives what each proxy
 * applies, so faults from several causes on one link (a member's latency and a one-way partition)
 * add up, and healing one never clears another.
 */
export class FaultNetwork implements MemberAddresses {
  private faults: NetworkFaults;

  private constructor(
    private readonly clientProxies: readonly FaultProxy[],
    private readonly peerProxies: readonly FaultProxy[],
    private readonly clientScheme: 'http' | 'https',
  ) {
    this.faults = { members: clientProxies.map(() => HEALTHY_MEMBER), oneWay: [] };
  }

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
          // gRPC over TLS cannot be read: a cut then still holds and delivers, cancellations included.
          http2Clients: clientScheme === 'http',
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

  /** The client proxy of member `index`, for tests that count its connections. */
  clientProxy(index: number): FaultProxy {
    return this.clientProxies[index]!;
  }

  blackhole(index: number, on: boolean): void {
    this.setMember(index, { blackhole: on });
  }

  isolate(index: number, on: boolean): void {
    this.setMember(index, { isolated: on });
  }

  cutClient(index: number, on: boolean): void {
    this.setMember(index, { clientCut: on });
  }

  setLatency(index: number, latencyMs: number, jitterMs = 0): void {
    this.setMember(index, { latencyMs, jitterMs });
  }

  setClientLatency(index: number, clientLatencyMs: number, clientJitterMs = 0): void {
    this.setMember(index, { clientLatencyMs, clientJitterMs });
  }

  /** Client side only: a peer stream losing bytes would just be torn down and redialled. */
  dropResponses(index: number, on: boolean): void {
    this.setMember(index, { dropResponses: on });
  }

  holdOneWay(from: number, to: number, on: boolean): void {
    const others = this.faults.oneWay.filter((h) => h.from !== from || h.to !== to);
    this.faults = { ...this.faults, oneWay: on ? [...others, { from, to }] : others };
    this.apply();
  }

  /** Every fault of member `index`, and every one-way partition it is part of, cleared. */
  heal(index: number): void {
    const oneWay: OneWayHold[] = this.faults.oneWay.filter((h) => h.from !== index && h.to !== index);
    this.faults = { members: this.faults.members.map((m, i) => (i === index ? HEALTHY_MEMBER : m)), oneWay };
    this.apply();
  }

  async close(): Promise<void> {
    await Promise.all([...this.clientProxies, ...this.peerProxies].map((proxy) => proxy.close()));
  }

  private setMember(index: number, changes: Partial<MemberFaults>): void {
    const members = this.faults.members.map((m, i) => (i === index ? { ...m, ...changes } : m));
    this.faults = { ...this.faults, members };
    this.apply();
  }

  private apply(): void {
    this.clientProxies.forEach((proxy, i) => proxy.setFaults(clientProxyFaults(this.faults, i)));
    this.peerProxies.forEach((proxy, i) => {
      const { all, bySource } = peerProxyFaults(this.faults, i);
      proxy.setFaults(all);
      bySource.forEach((faults, j) => {
        if (j !== i) proxy.setSourceFaults(sourceName(j), faults);
      });
    });
  }
}
