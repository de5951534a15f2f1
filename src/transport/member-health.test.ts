import { describe, expect, it } from 'vitest';
import type { CircuitState } from '../config/events.js';
import { MemberHealth } from './member-health.js';

const SETTINGS = { silentAfterMs: 250, probeEveryMs: 1000 };
const ENDPOINTS = ['a', 'b', 'c'];

function health(endpoints = ENDPOINTS) {
  const changes: Array<[string, CircuitState]> = [];
  const h = new MemberHealth(endpoints, SETTINGS, (endpoint, state) => changes.push([endpoint, state]));
  const admitted = (now: number) => endpoints.filter((_, i) => h.admits(i, now));
  return { h, changes, admitted };
}

/** Member `i` takes an attempt at `at` that fails for want of the member at `failedAt`. */
function failOnce(h: MemberHealth, i: number, at: number, failedAt = at + 500) {
  h.sent(i, at);
  h.failed(i, failedAt);
}

describe('member health', () => {
  it('admits every member while all answer', () => {
    const { admitted } = health();
    expect(admitted(0)).toEqual(ENDPOINTS);
  });

  it('a member whose attempt timed out takes no more attempts while another answers: the retry goes elsewhere', () => {
    const { h, admitted, changes } = health();
    failOnce(h, 0, 0);
    expect(h.state(0)).toBe('open');
    expect(admitted(600)).toEqual(['b', 'c']);
    expect(changes).toEqual([['a', 'open']]);
  });

  it('an open member is probed at once even when no member is closed, then every probe interval while probes fail', () => {
    const { h, changes } = health();
    for (const i of [0, 1, 2]) failOnce(h, i, 0);
    expect(h.dueProbes(500)).toEqual([0, 1, 2]);
    expect(h.dueProbes(501)).toEqual([]); // one probe in flight per member
    expect(h.state(0)).toBe('half-open');
    h.probeFailed(0, 1000, false);
    h.probeAnswered(1);
    expect([h.state(0), h.state(1), h.state(2)]).toEqual(['open', 'closed', 'half-open']);
    expect(h.dueProbes(1999)).toEqual([]);
    expect(h.dueProbes(2000)).toEqual([0]);
    expect(changes.filter(([endpoint]) => endpoint === 'a').map(([, state]) => state)).toEqual(['open', 'half-open', 'open', 'half-open']);
  });

  it('nothing is probed while every member is closed', () => {
    const { h } = health();
    h.sent(0, 0);
    h.answered(0, 5);
    expect(h.dueProbes(10_000)).toEqual([]);
  });

  it('a probe that answers closes the member, and it takes attempts again', () => {
    const { h, admitted } = health();
    failOnce(h, 0, 0);
    h.dueProbes(600);
    expect(admitted(600)).toEqual(['b', 'c']); // half-open: still not sent user attempts
    h.probeAnswered(0);
    expect(admitted(700)).toEqual(ENDPOINTS);
  });

  it('with every member open, every member takes attempts, and one that answers closes and takes them alone', () => {
    const { h, admitted } = health();
    for (const i of [0, 1, 2]) failOnce(h, i, 0);
    expect(admitted(600)).toEqual(ENDPOINTS);
    h.sent(1, 600);
    h.answered(1, 610);
    expect(h.state(1)).toBe('closed');
    expect(admitted(620)).toEqual(['b']);
  });

  it('a member silent on its outstanding attempts is passed over before they time out, and taken again once it answers', () => {
    const { h, admitted } = health();
    h.sent(0, 0);
    h.sent(0, 100);
    expect(admitted(249)).toEqual(ENDPOINTS);
    expect(admitted(250)).toEqual(['b', 'c']);
    expect(h.state(0)).toBe('closed'); // passed over, not failed: no probe, no circuit event
    h.answered(0, 300);
    expect(admitted(300)).toEqual(ENDPOINTS);
    // the attempt still out was sent to a member that answers: its silence counts from the answer
    expect(admitted(549)).toEqual(ENDPOINTS);
    expect(admitted(550)).toEqual(['b', 'c']);
  });

  it('a busy member that keeps answering is never silent', () => {
    const { h, admitted } = health();
    for (let t = 0; t < 5000; t += 100) {
      h.sent(0, t);
      h.sent(0, t + 1);
      h.answered(0, t + 50);
    }
    expect(admitted(5000)).toEqual(ENDPOINTS);
  });

  it('a follower that is open but alive ranks above a hung leader that is still closed but has gone silent', () => {
    const { h, admitted } = health();
    h.sent(0, 0); // the leader hangs: its attempts (long timeouts, after earlier timeouts) are outstanding
    failOnce(h, 1, 0, 300); // the followers' attempts, forwarded to it, time out first
    failOnce(h, 2, 0, 300);
    expect(admitted(300)).toEqual(['a']); // not yet known: the followers' probes have not answered
    h.dueProbes(300);
    h.probeFoundAlive(1);
    h.probeFoundAlive(2);
    expect(admitted(310)).toEqual(['b', 'c']);
  });

  it('among alive open members, one silent on attempts still outstanding ranks below the others', () => {
    const { h, admitted } = health();
    for (const i of [0, 1, 2]) failOnce(h, i, 0);
    h.dueProbes(500);
    for (const i of [0, 1, 2]) h.probeFoundAlive(i);
    h.sent(0, 600); // forwarded to a leader that does not answer
    expect(admitted(849)).toEqual(ENDPOINTS);
    expect(admitted(850)).toEqual(['b', 'c']);
  });

  it('in an election, the open members whose processes answer a probe take the attempts, not the hung one', () => {
    const { h, admitted } = health();
    for (const i of [0, 1, 2]) failOnce(h, i, 0); // the leader hung: everyone's attempts timed out
    expect(h.dueProbes(500)).toEqual([0, 1, 2]);
    h.probeFoundAlive(1);
    h.probeFoundAlive(2);
    expect(admitted(510)).toEqual(['b', 'c']);
    h.probeFailed(0, 1000, false);
    h.probeFailed(1, 1000, true); // no leader yet: alive, not serving
    expect(admitted(1000)).toEqual(['b', 'c']);
    h.sent(1, 1100);
    h.answered(1, 1110); // elected: b serves
    expect(admitted(1110)).toEqual(['b']);
  });

  it('a stream that fails opens its member; a probe result that arrives after an attempt closed the member changes nothing', () => {
    const { h, changes } = health();
    h.streamFailed(2, 0);
    expect(h.dueProbes(0)).toEqual([2]);
    h.sent(2, 10);
    h.answered(2, 20);
    h.probeFailed(2, 500, false);
    expect(h.state(2)).toBe('closed');
    expect(changes).toEqual([
      ['c', 'open'],
      ['c', 'half-open'],
      ['c', 'closed'],
    ]);
  });

  it('among members that all answer, the leader takes the attempts once it is known; while it is not, every member does', () => {
    const { h, admitted } = health();
    h.leads(1);
    expect(admitted(0)).toEqual(['b']);
    h.leads(undefined);
    expect(admitted(0)).toEqual(ENDPOINTS);
    expect(() => h.leads(3)).toThrow(RangeError);
  });

  it('a leader that fails or goes silent ranks below every follower that answers, and first again once it answers', () => {
    const { h, admitted } = health();
    h.leads(0);
    h.sent(0, 0);
    expect(admitted(249)).toEqual(['a']);
    expect(admitted(250)).toEqual(['b', 'c']); // silent on its attempt: passed over before it times out
    h.failed(0, 500);
    expect(admitted(500)).toEqual(['b', 'c']);
    h.dueProbes(500);
    h.probeAnswered(0);
    expect(admitted(600)).toEqual(['a']);
  });

  it('with every member open, the known leader is preferred only among equals: a closed follower goes first', () => {
    const { h, admitted } = health();
    h.leads(0);
    for (const i of [0, 1, 2]) failOnce(h, i, 0);
    h.dueProbes(500);
    for (const i of [0, 1, 2]) h.probeFoundAlive(i);
    expect(admitted(510)).toEqual(['a']);
    h.sent(2, 600);
    h.answered(2, 610); // c serves (a new leader, not known yet): it goes first
    expect(admitted(610)).toEqual(['c']);
  });

  it('a single endpoint always takes the attempt, whatever its state', () => {
    const { h, admitted } = health(['only']);
    failOnce(h, 0, 0);
    h.sent(0, 600);
    expect(admitted(5000)).toEqual(['only']);
  });

  it('judges silence against the current attempt timeout: on a cluster slower than its floor, a member answering at that pace outranks one that answers but cannot serve', () => {
    const rank = (silentAfterMs: number | (() => number)) => {
      const h = new MemberHealth(['a', 'b'], { silentAfterMs, probeEveryMs: 1000 });
      // b is cut off from its peers: its attempt failed, its probe's process step answers, the serving step does not.
      h.sent(1, 0);
      h.failed(1, 100);
      expect(h.dueProbes(100)).toEqual([1]);
      h.probeFoundAlive(1);
      h.probeFailed(1, 200, true);
      // a is healthy, at the cluster's pace: 800 ms per answer, well inside the 2 s attempt timeout it has grown to.
      h.sent(0, 1000);
      return ['a', 'b'].filter((_, i) => h.admits(i, 1800));
    };
    expect(rank(() => 2000 * 0.5)).toEqual(['a']);
    // Against the 500 ms floor, the healthy member counts as silent and the one that cannot serve takes the attempts.
    expect(rank(500 * 0.5)).toEqual(['b']);
  });
});
