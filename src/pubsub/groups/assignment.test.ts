import { describe, expect, it } from 'vitest';
import { preferredMember } from './assignment.js';

const members = ['m-a', 'm-b', 'm-c', 'm-d'];
const events = Array.from({ length: 4000 }, (_, i) => `pub-${i.toString(16).padStart(16, '0')}`);

describe('rendezvous assignment', () => {
  it('gives every member the same answer whatever order it lists the members in', () => {
    for (const id of events.slice(0, 200)) expect(preferredMember([...members].reverse(), id)).toBe(preferredMember(members, id));
  });

  it('spreads events evenly (each member within 20 % of its fair share)', () => {
    const counts = new Map<string, number>();
    for (const id of events) counts.set(preferredMember(members, id)!, (counts.get(preferredMember(members, id)!) ?? 0) + 1);
    for (const m of members) expect(Math.abs(counts.get(m)! - 1000)).toBeLessThan(200);
  });

  it('moves only the leaving member’s events when a member leaves', () => {
    const without = members.filter((m) => m !== 'm-b');
    for (const id of events) {
      const before = preferredMember(members, id);
      if (before !== 'm-b') expect(preferredMember(without, id)).toBe(before);
    }
  });

  it('has no preference without members', () => {
    expect(preferredMember([], 'x')).toBeUndefined();
  });
});
