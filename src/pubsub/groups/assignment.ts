/**
 * Rendezvous (highest-random-weight) hashing: the preferred consumer of an event is the member with the highest
 * score for (member, event). Every member computes the same answer from the same member set without talking to the
 * others; the load spreads evenly; and when a member leaves, only the events it was preferred for move.
 */
export function preferredMember(members: Iterable<string>, eventId: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const member of members) {
    const score = rendezvousScore(member, eventId);
    if (score > bestScore || (score === bestScore && best !== undefined && member < best)) {
      best = member;
      bestScore = score;
    }
  }
  return best;
}

/** A 53-bit hash of the pair (cyrb53: two 32-bit multiply-xor lanes), uniform enough for load spreading. */
export function rendezvousScore(member: string, eventId: string): number {
  const text = `${member}\u0000${eventId}`;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
