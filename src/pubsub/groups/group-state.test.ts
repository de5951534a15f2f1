import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../../operations/etcd-txn.js';
import { preferredMember } from './assignment.js';
import { encodeClaim, type ClaimValue } from './claim-txns.js';
import { encodeMemberState, GroupState, type DecideContext } from './group-state.js';

const kv = (value: Buffer, mod: string, create = mod): KeyValue => ({ key: Buffer.from('k'), value, mod_revision: mod, create_revision: create, lease: '7' });
const context = (over: Partial<DecideContext> = {}): DecideContext => ({
  now: 1000,
  busy: new Set<string>(),
  canClaim: true,
  claimTimeoutMs: 5000,
  redeliveryDelayMs: 100,
  ...over,
});

/** A state with members `me` and `other`, and one event whose preferred member is `preferred`. */
function setup(preferred: 'me' | 'other', floor = 0n) {
  const state = new GroupState('g', 'me', floor);
  state.apply({ kind: 'member', group: 'g', member: 'me' }, 'put', kv(encodeMemberState('active'), '2'), 0);
  state.apply({ kind: 'member', group: 'g', member: 'other' }, 'put', kv(encodeMemberState('active'), '3'), 0);
  let n = 0;
  let id = '';
  do id = `pub-${n++}`;
  while (preferredMember(['me', 'other'], id) !== preferred);
  state.apply({ kind: 'event', id }, 'put', kv(Buffer.from('{}'), '10'), 1000);
  return { state, id };
}
const claim = (state: GroupState, id: string, value: ClaimValue, mod: string, at = 1000) =>
  state.apply({ kind: 'claim', group: 'g', id }, 'put', kv(encodeClaim(value), mod), at);

describe('consumer group state', () => {
  it('lists its events in topic order (creation, then key), whatever the order they came in, and a rewrite keeps its place', () => {
    const state = new GroupState('g', 'me', 0n);
    const event = (id: string, mod: string, create = mod) =>
      state.apply({ kind: 'event', id }, 'put', { ...kv(Buffer.from('{}'), mod, create), key: Buffer.from(`e/${id}`) }, 0);
    event('p-3', '12');
    event('p-1', '11');
    event('p-2', '11');
    event('p-0', '20', '10'); // written again (moved to another lease): still the oldest
    expect(state.eventIds()).toEqual(['p-0', 'p-1', 'p-2', 'p-3']);
    expect(state.inTopicOrder(['p-3', 'gone', 'p-1'])).toEqual(['p-1', 'p-3', 'gone']);
  });

  it("knows when its group is the topic's only one with a backlog key", () => {
    const state = new GroupState('g', 'me', 0n);
    expect(state.onlyBacklog()).toBeUndefined();
    state.apply({ kind: 'backlog', group: 'g' }, 'put', kv(Buffer.from('{}'), '9', '5'), 0);
    expect(state.onlyBacklog()).toBe('5');
    state.apply({ kind: 'backlog', group: 'other' }, 'put', kv(Buffer.from('{}'), '10'), 0);
    expect(state.onlyBacklog()).toBeUndefined();
    state.apply({ kind: 'backlog', group: 'other' }, 'delete', kv(Buffer.alloc(0), '11'), 0);
    expect(state.onlyBacklog()).toBe('5');
  });

  it('the preferred member claims a new event at once; another waits claimTimeoutMs and then claims it', () => {
    const mine = setup('me');
    expect(mine.state.decide(mine.id, context())).toEqual({ kind: 'claim', reason: 'new', attempt: 1, claimRevision: undefined });
    const theirs = setup('other');
    expect(theirs.state.decide(theirs.id, context())).toEqual({ kind: 'wait', until: 6000 });
    expect(theirs.state.decide(theirs.id, context({ now: 6000 }))).toMatchObject({ kind: 'claim', reason: 'new' });
  });

  it('leaves an event held by a live member alone, and never offers an acked event again', () => {
    const { state, id } = setup('me');
    claim(state, id, { m: 'other', a: 1, s: 'held', t: 0 }, '11');
    expect(state.decide(id, context({ now: 1e9 }))).toEqual({ kind: 'ignore' });
    claim(state, id, { m: 'other', a: 1, s: 'done', t: 0 }, '12');
    expect(state.decide(id, context({ now: 1e9 }))).toEqual({ kind: 'ignore' });
    expect(state.events.has(id)).toBe(false); // nothing more to keep but the claim
  });

  it('takes over a dead member’s claim with the next attempt, against the claim’s revision', () => {
    const { state, id } = setup('me');
    claim(state, id, { m: 'other', a: 1, s: 'held', t: 0 }, '11');
    const all = state.apply({ kind: 'member', group: 'g', member: 'other' }, 'delete', kv(Buffer.alloc(0), '12'), 2000);
    expect(all).toBe('all');
    expect(state.decide(id, context({ now: 2000 }))).toEqual({ kind: 'claim', reason: 'member-lost', attempt: 2, claimRevision: '11' });
  });

  it('offers a nacked event again after redeliveryDelayMs × attempt', () => {
    const { state, id } = setup('me');
    claim(state, id, { m: 'other', a: 2, s: 'retry', t: 0 }, '11', 1000);
    expect(state.decide(id, context({ now: 1000 }))).toEqual({ kind: 'wait', until: 1200 });
    expect(state.decide(id, context({ now: 1200 }))).toEqual({ kind: 'claim', reason: 'retry', attempt: 3, claimRevision: '11' });
  });

  it('takes back its own claim only when it is not handling it (left over from a lost session)', () => {
    const { state, id } = setup('me');
    claim(state, id, { m: 'me', a: 1, s: 'held', t: 0 }, '11');
    expect(state.decide(id, context({ busy: new Set([id]) }))).toEqual({ kind: 'ignore' });
    expect(state.decide(id, context())).toMatchObject({ kind: 'claim', reason: 'orphan', attempt: 2 });
  });

  it('never takes an event from a live member that keeps it (its own in-flight timeout gives it up)', () => {
    const { state, id } = setup('other');
    claim(state, id, { m: 'other', a: 1, s: 'held', t: 0 }, '11', 1000);
    expect(state.decide(id, context({ now: 1e9 }))).toEqual({ kind: 'ignore' });
  });

  it('an event its holder gave up after the in-flight timeout goes at once to another member, even one not preferred', () => {
    // `me` is the preferred member of the event, and the one that gave it up: `other` takes it, at once.
    const mine = setup('me');
    claim(mine.state, mine.id, { m: 'me', a: 1, s: 'retry', t: 0, expired: true }, '11', 1000);
    expect(mine.state.decide(mine.id, context({ now: 1000 }))).toEqual({ kind: 'wait', until: 6000 });
    const theirs = new GroupState('g', 'other', 0n);
    for (const member of ['me', 'other']) theirs.apply({ kind: 'member', group: 'g', member }, 'put', kv(encodeMemberState('active'), '2'), 0);
    theirs.apply({ kind: 'event', id: mine.id }, 'put', kv(Buffer.from('{}'), '10'), 1000);
    claim(theirs, mine.id, { m: 'me', a: 1, s: 'retry', t: 0, expired: true }, '11', 1000);
    expect(theirs.decide(mine.id, context({ now: 1000 }))).toEqual({ kind: 'claim', reason: 'in-flight-timeout', attempt: 2, claimRevision: '11' });
  });

  it('an event its holder gave up after the in-flight timeout goes back to it when it is the only active member', () => {
    const state = new GroupState('g', 'me', 0n);
    state.apply({ kind: 'member', group: 'g', member: 'me' }, 'put', kv(encodeMemberState('active'), '2'), 0);
    state.apply({ kind: 'event', id: 'pub-1' }, 'put', kv(Buffer.from('{}'), '10'), 1000);
    claim(state, 'pub-1', { m: 'me', a: 2, s: 'retry', t: 0, expired: true }, '11', 1000);
    expect(state.decide('pub-1', context({ now: 1000 }))).toEqual({ kind: 'claim', reason: 'in-flight-timeout', attempt: 3, claimRevision: '11' });
  });

  it('does not claim while unregistered or at its limit, and ignores events from before a latest start', () => {
    const { state, id } = setup('me');
    expect(state.decide(id, context({ canClaim: false }))).toEqual({ kind: 'blocked' });
    const late = setup('me', 10n);
    expect(late.state.events.has(late.id)).toBe(false);
    expect(late.state.decide(late.id, context())).toEqual({ kind: 'ignore' });
  });

  it('a leaving member is not preferred', () => {
    const { state, id } = setup('other');
    state.apply({ kind: 'member', group: 'g', member: 'other' }, 'put', kv(encodeMemberState('leaving'), '13'), 1000);
    expect(state.activeMembers()).toEqual(['me']);
    expect(state.decide(id, context())).toMatchObject({ kind: 'claim' });
  });

  it('ignores other groups and stale claim updates; forgets events and claims once the event is deleted', () => {
    const { state, id } = setup('me');
    expect(state.apply({ kind: 'claim', group: 'h', id }, 'put', kv(encodeClaim({ m: 'x', a: 1, s: 'done', t: 0 }), '20'), 0)).toEqual([]);
    claim(state, id, { m: 'other', a: 2, s: 'held', t: 0 }, '21');
    claim(state, id, { m: 'other', a: 1, s: 'retry', t: 0 }, '15');
    expect(state.claims.get(id)).toMatchObject({ a: 2, revision: '21' });
    state.apply({ kind: 'event', id }, 'delete', kv(Buffer.alloc(0), '30'), 0);
    expect(state.events.has(id)).toBe(false);
    expect(state.claims.has(id)).toBe(false);
    expect(state.decide(id, context())).toEqual({ kind: 'ignore' });
  });
});
