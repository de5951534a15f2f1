import { combineFaults, NO_FAULTS, type LinkFaults } from './link-faults.js';

/** The network faults on one member, as the tests set them. */
export interface MemberFaults {
  /** All of its traffic, client and peer, held both ways. */
  readonly blackhole: boolean;
  /** Only its peer traffic held both ways: it loses the cluster while its clients stay attached. */
  readonly isolated: boolean;
  /** Its client link is cut: requests held and delivered late, new client connections refused. */
  readonly clientCut: boolean;
  /** Replies to its clients are discarded (client side only). */
  readonly dropResponses: boolean;
  /** Delay on its client and peer traffic, each way, plus up to `jitterMs` more per chunk. */
  readonly latencyMs: number;
  readonly jitterMs: number;
  /**
   * Delay on its client link only, added to the above: requests reach it late (after their caller's attempt
   * timed out and a retry answered) while its raft traffic keeps time, so it stays a healthy member.
   */
  readonly clientLatencyMs: number;
  readonly clientJitterMs: number;
}

export const HEALTHY_MEMBER: MemberFaults = Object.freeze({
  blackhole: false,
  isolated: false,
  clientCut: false,
  dropResponses: false,
  latencyMs: 0,
  jitterMs: 0,
  clientLatencyMs: 0,
  clientJitterMs: 0,
});

/** Raft messages from member `from` to member `to` are held; the other direction flows. */
export interface OneWayHold {
  readonly from: number;
  readonly to: number;
}

export interface NetworkFaults {
  readonly members: readonly MemberFaults[];
  readonly oneWay: readonly OneWayHold[];
}

/** What one peer proxy applies: faults for every connection, plus more for connections a given member opened. */
export interface PeerProxyFaults {
  readonly all: LinkFaults;
  /** Indexed by the member that opened the connection (its own index holds NO_FAULTS). */
  readonly bySource: readonly LinkFaults[];
}

/** The client proxy in front of member `index`. */
export function clientProxyFaults(network: NetworkFaults, index: number): LinkFaults {
  const m = network.members[index]!;
  return {
    holdRequests: m.blackhole,
    holdResponses: m.blackhole,
    cut: m.clientCut,
    latencyMs: m.latencyMs + m.clientLatencyMs,
    jitterMs: m.jitterMs + m.clientJitterMs,
    dropResponses: m.dropResponses,
  };
}

/**
 * The peer proxy in front of member `index`. Raft traffic between two members flows over connections
 * dialled by both (see peer-identity.ts), and every connection enters through the *destination's* proxy:
 * - member i's own faults apply to every connection into its proxy, and to the connections i opened into
 *   the other proxies (identified by source);
 * - messages from A to B travel as requests on connections A opened into B's proxy (pipeline posts) and as
 *   responses on connections B opened into A's proxy (the streams B reads from A). Holding one direction
 *   therefore holds requests from A at B's proxy and responses to B at A's proxy.
 */
export function peerProxyFaults(network: NetworkFaults, index: number): PeerProxyFaults {
  const all = memberPeerFaults(network.members[index]!);
  const bySource = network.members.map((source, j) => {
    if (j === index) return NO_FAULTS;
    let faults = memberPeerFaults(source);
    for (const hold of network.oneWay) {
      if (hold.from === j && hold.to === index) faults = combineFaults(faults, { ...NO_FAULTS, holdRequests: true });
      if (hold.from === index && hold.to === j) faults = combineFaults(faults, { ...NO_FAULTS, holdResponses: true });
    }
    return faults;
  });
  return { all, bySource };
}

function memberPeerFaults(m: MemberFaults): LinkFaults {
  const held = m.blackhole || m.isolated;
  return { ...NO_FAULTS, holdRequests: held, holdResponses: held, latencyMs: m.latencyMs, jitterMs: m.jitterMs };
}
