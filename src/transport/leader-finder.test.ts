import type { Etcd3, IStatusResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { LeaderFinder } from './leader-finder.js';
import { MemberClients } from './member-clients.js';
import { MemberHealth } from './member-health.js';

const ENDPOINTS = ['a', 'b', 'c'];

/** Members answering Status as `answers` says at the time (undefined: no answer), with the calls counted. */
function finder(answers: Record<string, () => Partial<IStatusResponse> | 'refused' | undefined>) {
  const health = new MemberHealth(ENDPOINTS, { silentAfterMs: 250, probeEveryMs: 1000 });
  let asked = 0;
  const clients = new MemberClients(
    (endpoint) =>
      ({
        maintenance: {
          status: async () => {
            asked++;
            const answer = answers[endpoint]!();
            if (answer === undefined) throw new Error('no answer');
            if (answer === 'refused') throw new Error('permission denied');
            return answer;
          },
        },
        close: () => {},
      }) as unknown as Etcd3,
  );
  const f = new LeaderFinder({ health, clients, timeoutMs: () => 1000, everyMs: 1000, countsAsFailure: (e) => (e as Error).message === 'no answer' });
  const admitted = () => ENDPOINTS.filter((_, i) => health.admits(i, 0));
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { f, health, clients, admitted, settle, asked: () => asked };
}

const status = (memberId: string, leader: string, raftTerm: string) => ({ header: { member_id: memberId, cluster_id: '1', revision: '1', raft_term: raftTerm }, leader, raftTerm });

describe('leader finder', () => {
  it('an answer of a newer term asks every member; the leader the newest term names takes the attempts', async () => {
    let leader = '12';
    let term = '3';
    const { f, admitted, settle, asked } = finder({ a: () => status('11', leader, term), b: () => status('12', leader, term), c: () => undefined });
    expect(admitted()).toEqual(ENDPOINTS);
    f.observed('3', 0);
    await settle();
    expect(asked()).toBe(3);
    expect(admitted()).toEqual(['b']);

    f.observed('3', 5000); // same term: nothing changed
    expect(asked()).toBe(3);

    leader = '11';
    term = '4';
    f.observed('4', 5000);
    await settle();
    expect(asked()).toBe(6);
    expect(admitted()).toEqual(['a']);
  });

  it('asks at most once per interval, and not before an answer says anything', async () => {
    const { f, settle, asked } = finder({ a: () => ({ leader: '0', raftTerm: '2' }), b: () => undefined, c: () => undefined });
    f.observed(undefined, 0);
    expect(asked()).toBe(0);
    f.observed('2', 0);
    await settle();
    expect(asked()).toBe(3);
    f.observed('2', 500); // no leader was found: still to learn, but not within the interval
    await settle();
    expect(asked()).toBe(3);
    f.observed('2', 1000);
    await settle();
    expect(asked()).toBe(6);
  });

  it('where every member refuses Status (a user without the rights), there is no preference and no asking until the next election', async () => {
    const { f, health, admitted, settle, asked } = finder({ a: () => 'refused', b: () => 'refused', c: () => 'refused' });
    health.leads(2);
    f.observed('4', 0);
    await settle();
    expect(asked()).toBe(3);
    expect(admitted()).toEqual(ENDPOINTS);
    f.observed('4', 5000);
    expect(asked()).toBe(3);
    f.observed('5', 5000);
    await settle();
    expect(asked()).toBe(6);
  });

  it('a leader that is none of the endpoints leaves no preference; a closed client asks nothing', async () => {
    const { f, health, clients, admitted, settle, asked } = finder({ a: () => status('11', '99', '5'), b: () => status('12', '99', '5'), c: () => status('13', '99', '5') });
    health.leads(0);
    f.observed('5', 0);
    await settle();
    expect(admitted()).toEqual(ENDPOINTS);
    clients.close();
    f.observed('6', 5000);
    expect(asked()).toBe(3);
  });

  it("keeps its preference when the leader's own Status times out: the followers name it, and it is found by the id it answered with before", async () => {
    let leaderAnswers = true;
    let term = '3';
    const { f, admitted, settle } = finder({ a: () => status('11', '12', term), b: () => (leaderAnswers ? status('12', '12', term) : undefined), c: () => status('13', '12', term) });
    f.observed('3', 0);
    await settle();
    expect(admitted()).toEqual(['b']);
    leaderAnswers = false; // busy: its Status runs out of time
    term = '4'; // an election that b won again
    f.observed('4', 5000);
    await settle();
    expect(admitted()).toEqual(['b']);
  });

  it('a leader whose Status timed out in its first search is looked for again at the next answer, not only after the next election', async () => {
    let leaderAnswers = false;
    const { f, admitted, settle, asked } = finder({ a: () => status('11', '12', '3'), b: () => (leaderAnswers ? status('12', '12', '3') : undefined), c: () => status('13', '12', '3') });
    f.observed('3', 0);
    await settle();
    expect(admitted()).toEqual(ENDPOINTS); // not known yet which endpoint is member 12
    leaderAnswers = true;
    f.observed('3', 1000);
    await settle();
    expect(asked()).toBe(6);
    expect(admitted()).toEqual(['b']);
  });
});
