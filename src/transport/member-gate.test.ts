import { isBrokenCircuitError } from 'cockatiel';
import { GRPCDeadlineExceededError, GRPCInvalidArgumentError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { EndpointFailures } from './endpoint-failures.js';
import { MemberGate } from './member-gate.js';
import { MemberHealth } from './member-health.js';

function gates() {
  const health = new MemberHealth(['a', 'b'], { silentAfterMs: 250, probeEveryMs: 1000 });
  const failures = new EndpointFailures(false);
  const probed: number[] = [];
  const terms: Array<string | undefined> = [];
  const parts = {
    health,
    failures,
    probes: { runDue: (now: number) => probed.push(now) },
    leader: { observed: (term: string | undefined) => void terms.push(term) },
    countsAsFailure: (e: unknown) => e instanceof GRPCDeadlineExceededError,
  };
  return { health, failures, probed, terms, a: new MemberGate(0, 'a', parts), b: new MemberGate(1, 'b', parts) };
}

const timeout = () => Promise.reject(new GRPCDeadlineExceededError('deadline'));

describe('member gate', () => {
  it('a request that times out opens its member, and the next request passes it over (etcd3 then tries the next host)', async () => {
    const { a, b, health, failures } = gates();
    await expect(a.execute(timeout)).rejects.toBeInstanceOf(GRPCDeadlineExceededError);
    expect(health.state(0)).toBe('open');
    expect(failures.causes().map((c) => c.endpoint)).toEqual(['a']);
    const refused = await a.execute(() => Promise.resolve('never sent')).catch((e: unknown) => e);
    expect(isBrokenCircuitError(refused)).toBe(true);
    await expect(b.execute(() => Promise.resolve('answered'))).resolves.toBe('answered');
  });

  it('an error of etcd’s own is an answer: the member stays closed', async () => {
    const { a, health } = gates();
    await expect(a.execute(() => Promise.reject(new GRPCInvalidArgumentError('bad')))).rejects.toBeInstanceOf(GRPCInvalidArgumentError);
    expect(health.state(0)).toBe('closed');
  });

  it('opening a stream is no answer: it never closes an open member', async () => {
    const { a, b, health } = gates();
    await a.execute(timeout).catch(() => {});
    await b.execute(timeout).catch(() => {});
    health.dueProbes(performance.now()); // both half-open now
    const stream = { on: () => {} };
    await expect(a.execute(() => stream)).resolves.toBe(stream);
    expect(health.state(0)).toBe('half-open');
  });

  it('a stream error etcd3 reports through the policy opens the member', async () => {
    const { a, health } = gates();
    const reported = a.execute(() => {
      throw new GRPCDeadlineExceededError('stream broke');
    });
    await expect(reported).rejects.toBeInstanceOf(GRPCDeadlineExceededError);
    expect(health.state(0)).toBe('open');
  });

  it('every answer hands its Raft term to the leader finder; failures and streams hand none', async () => {
    const { a, terms } = gates();
    await a.execute(() => Promise.resolve({ header: { raft_term: '7' } }));
    await a.execute(() => Promise.resolve('no header'));
    await a.execute(() => ({ on: () => {} }));
    await a.execute(timeout).catch(() => {});
    expect(terms).toEqual(['7', undefined]);
  });

  it('every request on its way starts the probes that are due', async () => {
    const { a, probed } = gates();
    await a.execute(() => Promise.resolve(1));
    expect(probed.length).toBe(1);
  });
});
