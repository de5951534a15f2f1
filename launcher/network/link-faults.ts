/**
 * The faults a FaultProxy can inject on one proxied TCP connection. Kept as plain data so the
 * cluster can compute a connection's faults from several causes (the member it enters, the
 * member it comes from, a one-way partition between the two) without the proxy knowing about members.
 */
export interface LinkFaults {
  /**
   * Client-to-server bytes stop moving while the connection stays open: the proxy stops reading, so
   * the sender's kernel buffers fill, as with a silent partition. Nothing is discarded: when the fault
   * clears, held bytes are delivered (TCP would retransmit them after a short partition).
   */
  readonly holdRequests: boolean;
  /** The same for server-to-client bytes. Both together are a blackhole; one alone, a one-way partition. */
  readonly holdResponses: boolean;
  /**
   * The link is cut and what was sent into it arrives late. Bytes in both directions are held by the
   * proxy itself (it keeps reading, so nothing is lost when a side gives up) and delivered when the cut
   * ends — requests even when their client has closed or reset its side in the meantime, which is how a
   * request its sender gave up on still reaches the server. On a proxy that reads HTTP/2 (client
   * proxies), a client's cancellation of a held request (RST_STREAM) is never delivered, and it ends the
   * client's side of the connection (see ProxiedConnection). Proxy-wide, a cut also refuses new connections.
   */
  readonly cut: boolean;
  /** Added one-way delay for every chunk, in both directions. */
  readonly latencyMs: number;
  /** A further random delay of 0..jitterMs per chunk; a chunk never overtakes the one before it (TCP order). */
  readonly jitterMs: number;
  /**
   * Server-to-client bytes are discarded on arrival: a request reaches the server and commits,
   * the reply never reaches the client. A connection that lost bytes is reset when this fault
   * clears, because its byte stream (HTTP/2 frames) can no longer be parsed.
   */
  readonly dropResponses: boolean;
}

export const NO_FAULTS: LinkFaults = Object.freeze({
  holdRequests: false,
  holdResponses: false,
  cut: false,
  latencyMs: 0,
  jitterMs: 0,
  dropResponses: false,
});

/** Faults from independent causes add up: any of them can hold or cut the link, delays accumulate. */
export function combineFaults(a: LinkFaults, b: LinkFaults): LinkFaults {
  return {
    holdRequests: a.holdRequests || b.holdRequests,
    holdResponses: a.holdResponses || b.holdResponses,
    cut: a.cut || b.cut,
    latencyMs: a.latencyMs + b.latencyMs,
    jitterMs: a.jitterMs + b.jitterMs,
    dropResponses: a.dropResponses || b.dropResponses,
  };
}
