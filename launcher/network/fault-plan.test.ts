import { describe, expect, it } from 'vitest';
import { clientProxyFaults, HEALTHY_MEMBER, peerProxyFaults, type MemberFaults, type NetworkFaults } from './fault-plan.js';
import { NO_FAULTS } from './link-faults.js';

const network = (changes: Record<number, Partial<MemberFaults>> = {}, oneWay: NetworkFaults['oneWay'] = []): NetworkFaults => ({
  members: [0, 1, 2].map((i) => ({ ...HEALTHY_MEMBER, ...changes[i] })),
  oneWay,
});

const HELD_BOTH = { ...NO_FAULTS, holdRequests: true, holdResponses: true };

describe('fault plan: what each proxy applies', () => {
  it('a healthy network faults nothing', () => {
    for (const i of [0, 1, 2]) {
      expect(clientProxyFaults(network(), i)).toEqual(NO_FAULTS);
      expect(peerProxyFaults(network(), i)).toEqual({ all: NO_FAULTS, bySource: [NO_FAULTS, NO_FAULTS, NO_FAULTS] });
    }
  });

  it('a blackhole holds the member\u2019s clients, its own peer proxy, and what it opened into the others', () => {
    const net = network({ 1: { blackhole: true } });
    expect(clientProxyFaults(net, 1)).toEqual(HELD_BOTH);
    expect(peerProxyFaults(net, 1).all).toEqual(HELD_BOTH);
    for (const other of [0, 2]) {
      expect(clientProxyFaults(net, other)).toEqual(NO_FAULTS);
      expect(peerProxyFaults(net, other).all).toEqual(NO_FAULTS);
      expect(peerProxyFaults(net, other).bySource[1]).toEqual(HELD_BOTH);
    }
  });

  it('isolating a member holds its peer traffic only: its clients stay attached', () => {
    const net = network({ 0: { isolated: true } });
    expect(clientProxyFaults(net, 0)).toEqual(NO_FAULTS);
    expect(peerProxyFaults(net, 0).all).toEqual(HELD_BOTH);
    expect(peerProxyFaults(net, 2).bySource[0]).toEqual(HELD_BOTH);
  });

  it('a client cut touches the member\u2019s client proxy only', () => {
    const net = network({ 2: { clientCut: true } });
    expect(clientProxyFaults(net, 2)).toEqual({ ...NO_FAULTS, cut: true });
    for (const i of [0, 1, 2]) expect(peerProxyFaults(net, i)).toEqual(peerProxyFaults(network(), i));
  });

  it('a one-way hold from A to B holds requests from A at B and responses to B at A, nothing else', () => {
    const net = network({}, [{ from: 0, to: 1 }]);
    expect(peerProxyFaults(net, 1).bySource[0]).toEqual({ ...NO_FAULTS, holdRequests: true });
    expect(peerProxyFaults(net, 0).bySource[1]).toEqual({ ...NO_FAULTS, holdResponses: true });
    expect(peerProxyFaults(net, 1).bySource[2]).toEqual(NO_FAULTS);
    expect(peerProxyFaults(net, 0).bySource[2]).toEqual(NO_FAULTS);
    expect(peerProxyFaults(net, 2)).toEqual(peerProxyFaults(network(), 2));
    for (const i of [0, 1]) expect(peerProxyFaults(net, i).all).toEqual(NO_FAULTS);
  });

  it('client latency slows the client link only', () => {
    const net = network({ 1: { clientLatencyMs: 2000, clientJitterMs: 500, latencyMs: 10 } });
    expect(clientProxyFaults(net, 1)).toEqual({ ...NO_FAULTS, latencyMs: 2010, jitterMs: 500 });
    expect(peerProxyFaults(net, 1).all).toEqual({ ...NO_FAULTS, latencyMs: 10 });
    expect(peerProxyFaults(net, 0).bySource[1]).toEqual({ ...NO_FAULTS, latencyMs: 10 });
  });

  it('faults from several causes add up on one link', () => {
    const net = network({ 0: { latencyMs: 30, jitterMs: 10 }, 1: { latencyMs: 5 } }, [{ from: 0, to: 1 }]);
    expect(peerProxyFaults(net, 1).bySource[0]).toEqual({ ...NO_FAULTS, holdRequests: true, latencyMs: 30, jitterMs: 10 });
    expect(peerProxyFaults(net, 1).all).toEqual({ ...NO_FAULTS, latencyMs: 5 });
    expect(clientProxyFaults(net, 0)).toEqual({ ...NO_FAULTS, latencyMs: 30, jitterMs: 10 });
  });
});
