import type { SourceIdentifier } from './proxied-connection.js';

/**
 * Identifies which etcd member opened a peer connection.
 *
 * Why this is needed: raft traffic between two members flows over connections dialled by
 * *both* of them (each member receives on the stream it dialled and sends pipeline posts to
 * the other's peer URL). All those connections enter through the *destination's* peer proxy,
 * so cutting member i off means holding connections into i's proxy *and* connections that i
 * opened into everyone else's. The only thing that tells i's connections apart is the
 * request: etcd's rafthttp puts the sender's advertised peer URLs in an `X-PeerURLs` header
 * on stream and pipeline requests, and we advertise the proxy URLs, which we know.
 *
 * Requests without the header (version polls, RTT probes, lease-renewal forwarding) stay
 * unidentified and are only subject to the destination's faults.
 */
export function identifyPeerBySenderUrl(sourceForPeerUrl: (url: string) => string | undefined): SourceIdentifier {
  return (head) => {
    // Headers are ASCII; latin1 keeps byte offsets equal to string offsets.
    const text = head.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return { complete: false };
    for (const line of text.slice(0, end).split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'x-peerurls') continue;
      for (const url of line.slice(colon + 1).split(',')) {
        const source = sourceForPeerUrl(url.trim());
        if (source !== undefined) return { complete: true, source };
      }
    }
    return { complete: true, source: undefined };
  };
}
