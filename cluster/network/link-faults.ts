/**
 * The faults a FaultProxy can inject on one proxied TCP connection. Kept as plain data so the
 * cluster can compute a connection's faults from two causes (the member it enters and the
 * member it comes from) without the proxy knowing about members.
 */
export interface LinkFaults {
  /**
   * Bytes stop moving in both directions while the connection stays open: the proxy stops
   * reading, so the sender's kernel buffers fill, as with a silent partition. Nothing is
   * discarded: when the fault clears, held bytes are delivered (TCP would retransmit them
   * after a short partition), which is also how delayed, stale requests reach a server.
   */
  readonly blackhole: boolean;
  /** Added one-way delay for every chunk, in both directions. */
  readonly latencyMs: number;
  /**
   * Server-to-client bytes are discarded on arrival: a request reaches the server and commits,
   * the reply never reaches the client. A connection that lost bytes is reset when this fault
   * clears, because its byte stream (HTTP/2 frames) can no longer be parsed.
   */
  readonly dropResponses: boolean;
}

export const NO_FAULTS: LinkFaults = Object.freeze({ blackhole: false, latencyMs: 0, dropResponses: false });

/** Faults from two independent causes add up: either can cut the link, delays accumulate. */
export function combineFaults(a: LinkFaults, b: LinkFaults): LinkFaults {
  return {
    blackhole: a.blackhole || b.blackhole,
    latencyMs: a.latencyMs + b.latencyMs,
    dropResponses: a.dropResponses || b.dropResponses,
  };
}
