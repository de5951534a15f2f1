/**
 * Order of scenarios within each round: the list forward in even rounds and backward in odd ones
 * (an A-B-B-A design).
 *
 * - Scenarios compared with each other sit next to each other in the list and stay neighbours in
 *   every round, so each pair runs seconds apart and sees the same machine load (another engineer's
 *   test suite, a GC, etcd's background work) — which is what makes per-round ratios meaningful.
 * - Which of the two goes first alternates, so whatever one scenario leaves behind (expiring leases,
 *   compaction) falls on both sides equally, and over two rounds every scenario's mean position is
 *   the middle of the round.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...items] : [...items].reverse();
}
