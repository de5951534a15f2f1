import { describe, expect, it } from 'vitest';
import { identifyPeerBySenderUrl } from './peer-identity.js';

const known = new Map([['http://127.0.0.1:4001', 'member-1']]);
const identify = identifyPeerBySenderUrl((url) => known.get(url));

// Shaped like etcd 3.4's rafthttp stream dial (header names and order as Go writes them).
const streamRequest = [
  'GET /raft/stream/msgappv2/a1b2c3 HTTP/1.1',
  'Host: 127.0.0.1:4002',
  'User-Agent: Go-http-client/1.1',
  'X-Etcd-Cluster-Id: 1c2d3e',
  'X-Peerurls: http://127.0.0.1:4001',
  'X-Server-From: d4e5f6',
  '',
  '',
].join('\r\n');

describe('identifyPeerBySenderUrl', () => {
  it('names the member whose advertised peer URL is in X-PeerURLs, whatever its case', () => {
    expect(identify(Buffer.from(streamRequest))).toEqual({ complete: true, source: 'member-1' });
  });

  it('asks for more bytes until the header block is complete', () => {
    expect(identify(Buffer.from(streamRequest.slice(0, 80)))).toEqual({ complete: false });
  });

  it('leaves requests without a known sender unidentified', () => {
    const probe = 'GET /raft/probing HTTP/1.1\r\nHost: 127.0.0.1:4002\r\n\r\n';
    expect(identify(Buffer.from(probe))).toEqual({ complete: true, source: undefined });
    const stranger = streamRequest.replace('4001', '4999');
    expect(identify(Buffer.from(stranger))).toEqual({ complete: true, source: undefined });
  });
});
