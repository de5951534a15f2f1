import type { LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';

import { EtcdUnavailableError } from '../errors/unavailable.js';
import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { ProviderClosedError } from '../errors/closed.js';
import { RecordingPubSub } from '../../test/mastra/support/recording-pubsub.js';
import { guardLeaseProvider } from './guarded-lease-provider.js';
import { LastKnownOwners } from './last-known-owners.js';
import { PubSubWithLeases } from './pubsub-with-leases.js';

const KEY = 'r\u0000t';
const MAX_AGE = 30_000;

/** A clock the test moves by hand: both raw clocks advance together. */
function manualClock() {
  let ms = 0;
  return { source: { monotonic: () => ms, wall: () => 1_700_000_000_000 + ms }, advance: (by: number) => void (ms += by) };
}

/**
 * A lease provider whose answers the test sets: `holder` is what etcd would say, `down` makes every call reject with
 * `failure` as the etcd provider does once its deadline passes.
 */
function scriptedEtcd(failure: Error = new EtcdUnavailableError('call', 1, 5000, new Error('no leader'))) {
  const state = { holder: undefined as string | undefined, down: false };
  const call = <T>(answer: () => T) => (state.down ? Promise.reject(failure) : Promise.resolve(answer()));
  const provider: LeaseProvider = {
    acquireLease: (_key, owner) =>
      call(() => {
        if (state.holder === undefined || state.holder === owner) {
          state.holder = owner;
          return { acquired: true, owner };
        }
        return { acquired: false, owner: state.holder };
      }),
    getLeaseOwner: () => call(() => state.holder),
    releaseLease: (_key, owner) =>
      call(() => {
        if (state.holder === owner) state.holder = undefined;
      }),
    renewLease: (_key, owner) => call(() => state.holder === owner),
    transferLease: (_key, from, to) =>
      call(() => {
        if (state.holder !== from) return false;
        state.holder = to;
        return true;
      }),
  };
  return { provider, state, failure };
}

function guarded(options: Parameters<typeof guardLeaseProvider>[1], failure?: Error) {
  const clock = manualClock();
  const etcd = scriptedEtcd(failure);
  return { ...etcd, clock, leases: guardLeaseProvider(etcd.provider, options, clock.source) };
}

describe('lastKnownOwnerMaxAgeMs: answers while etcd is unreachable', () => {
  it('getLeaseOwner answers the holder etcd last named, up to the maximum age, then rejects again', async () => {
    const { leases, state, clock, failure } = guarded({ lastKnownOwnerMaxAgeMs: MAX_AGE });
    state.holder = 'run-a';
    expect(await leases.getLeaseOwner(KEY)).toBe('run-a');
    state.down = true;
    clock.advance(MAX_AGE);
    expect(await leases.getLeaseOwner(KEY)).toBe('run-a');
    clock.advance(1);
    await expect(leases.getLeaseOwner(KEY)).rejects.toBe(failure);
  });

  it('without the option, a read that cannot reach etcd rejects (the provider stays linearizable)', async () => {
    const { leases, state, failure } = guarded({ onAcquireError: 'deny' });
    state.holder = 'run-a';
    expect(await leases.getLeaseOwner(KEY)).toBe('run-a');
    state.down = true;
    await expect(leases.getLeaseOwner(KEY)).rejects.toBe(failure);
  });

  it('learns from acquires, renewals and transfers, and forgets on release', async () => {
    const { leases, state } = guarded({ lastKnownOwnerMaxAgeMs: MAX_AGE });
    const whileDown = async () => {
      state.down = true;
      const answer = await leases.getLeaseOwner(KEY).catch(() => 'rejected');
      state.down = false;
      return answer;
    };
    await leases.acquireLease(KEY, 'run-a', 3000);
    expect(await whileDown()).toBe('run-a');
    expect(await leases.acquireLease(KEY, 'run-b', 3000)).toEqual({ acquired: false, owner: 'run-a' });
    expect(await leases.transferLease(KEY, 'run-a', 'run-c', 3000)).toBe(true);
    expect(await whileDown()).toBe('run-c');
    expect(await leases.renewLease(KEY, 'run-c', 3000)).toBe(true);
    expect(await whileDown()).toBe('run-c');
    await leases.releaseLease(KEY, 'run-c');
    expect(await whileDown()).toBe('rejected');
  });

  it('a renewal or a transfer that finds the holder gone forgets it', async () => {
    const { leases, state } = guarded({ lastKnownOwnerMaxAgeMs: MAX_AGE });
    state.holder = 'run-a';
    await leases.getLeaseOwner(KEY);
    state.holder = 'run-x';
    expect(await leases.renewLease(KEY, 'run-a', 3000)).toBe(false);
    state.down = true;
    await expect(leases.getLeaseOwner(KEY)).rejects.toThrow(EtcdUnavailableError);
    state.down = false;
    await leases.getLeaseOwner(KEY);
    state.holder = undefined;
    expect(await leases.transferLease(KEY, 'run-x', 'run-y', 3000)).toBe(false);
    state.down = true;
    await expect(leases.getLeaseOwner(KEY)).rejects.toThrow(EtcdUnavailableError);
  });

  it("with 'deny', a failed acquire names the last known holder so the message is forwarded, never the caller itself", async () => {
    const { leases, state } = guarded({ onAcquireError: 'deny', lastKnownOwnerMaxAgeMs: MAX_AGE });
    state.holder = 'run-a';
    await leases.getLeaseOwner(KEY);
    state.down = true;
    expect(await leases.acquireLease(KEY, 'run-b', 3000)).toEqual({ acquired: false, owner: 'run-a' });
    // The caller itself as the holder would read as "acquired" to Mastra: not etcd's word, so no owner.
    const own = await leases.acquireLease(KEY, 'run-a', 3000);
    expect(own).toEqual({ acquired: false });
    expect('owner' in own).toBe(false);
  });

  it("with 'throw', a failed acquire still rejects: the idle wake stays fail-open, as chosen", async () => {
    const { leases, state, failure } = guarded({ lastKnownOwnerMaxAgeMs: MAX_AGE });
    state.holder = 'run-a';
    await leases.getLeaseOwner(KEY);
    state.down = true;
    await expect(leases.acquireLease(KEY, 'run-b', 3000)).rejects.toBe(failure);
  });

  it('answers only for an unreachable etcd: other errors (a closed provider) reject as they are', async () => {
    const closed = new ProviderClosedError('getLeaseOwner', 'EtcdLeaseProvider');
    const { leases, state } = guarded({ onAcquireError: 'deny', lastKnownOwnerMaxAgeMs: MAX_AGE }, closed);
    state.holder = 'run-a';
    await leases.getLeaseOwner(KEY);
    state.down = true;
    await expect(leases.getLeaseOwner(KEY)).rejects.toBe(closed);
    expect(await leases.acquireLease(KEY, 'run-b', 3000)).toEqual({ acquired: false });
  });

  it('a free key is not remembered: a read that cannot reach etcd rejects', async () => {
    const { leases, state } = guarded({ lastKnownOwnerMaxAgeMs: MAX_AGE });
    state.holder = 'run-a';
    await leases.getLeaseOwner(KEY);
    state.holder = undefined;
    expect(await leases.getLeaseOwner(KEY)).toBeUndefined();
    state.down = true;
    await expect(leases.getLeaseOwner(KEY)).rejects.toThrow(EtcdUnavailableError);
  });

  it('onLeaseError still sees the failure that the answer stands in for', async () => {
    const seen: string[] = [];
    const { leases, state } = guarded({ lastKnownOwnerMaxAgeMs: MAX_AGE, onLeaseError: (_e, operation) => void seen.push(operation) });
    state.holder = 'run-a';
    await leases.getLeaseOwner(KEY);
    state.down = true;
    expect(await leases.getLeaseOwner(KEY)).toBe('run-a');
    expect(seen).toEqual(['getLeaseOwner']);
  });
});

describe('LastKnownOwners', () => {
  it('an answer to an older call does not replace what a newer one taught', () => {
    const clock = manualClock();
    const known = new LastKnownOwners(MAX_AGE, clock.source);
    const older = known.now();
    clock.advance(10);
    known.learn(KEY, 'newer', known.now());
    known.learn(KEY, 'older', older);
    expect(known.recall(KEY)).toBe('newer');
  });

  it('ages by the wall clock across a suspend, when the monotonic clock stood still', () => {
    let wall = 1_700_000_000_000;
    const known = new LastKnownOwners(MAX_AGE, { monotonic: () => 0, wall: () => wall });
    known.learn(KEY, 'run-a', known.now());
    wall += MAX_AGE + 1;
    expect(known.recall(KEY)).toBeUndefined();
  });

  it('an entry learnt out of order behind a fresher one is still never answered once too old', () => {
    const clock = manualClock();
    const known = new LastKnownOwners(MAX_AGE, clock.source);
    const early = known.now();
    clock.advance(1000);
    known.learn('fresh', 'x', known.now());
    known.learn('late', 'y', early);
    clock.advance(MAX_AGE - 500);
    expect(known.recall('fresh')).toBe('x');
    expect(known.recall('late')).toBeUndefined();
  });
});

describe('lastKnownOwnerMaxAgeMs: bad input', () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('%s is a range error naming the option', (value) => {
    expect(() => new PubSubWithLeases(new RecordingPubSub(), scriptedEtcd().provider, { lastKnownOwnerMaxAgeMs: value })).toThrow(LeaseArgumentRangeError);
    expect(() => new PubSubWithLeases(new RecordingPubSub(), scriptedEtcd().provider, { lastKnownOwnerMaxAgeMs: value })).toThrow(/options\.lastKnownOwnerMaxAgeMs/);
  });

  it('a string is a type error naming the option', () => {
    const options = { lastKnownOwnerMaxAgeMs: '30000' as unknown as number };
    expect(() => new PubSubWithLeases(new RecordingPubSub(), scriptedEtcd().provider, options)).toThrow(LeaseArgumentTypeError);
    expect(() => new PubSubWithLeases(new RecordingPubSub(), scriptedEtcd().provider, options)).toThrow(/options\.lastKnownOwnerMaxAgeMs/);
  });
});
