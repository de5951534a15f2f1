import { later, reaches, type PooledLease, type Reach } from '../leases/lease-choice.js';

/** Where a refresh may leave the key: see `refreshChoice`. */
export type RefreshChoice = { readonly kind: 'keep'; readonly onLease: PooledLease } | { readonly kind: 'move'; readonly reach: Reach } | { readonly kind: 'foreign' };

const FOREIGN: RefreshChoice = Object.freeze({ kind: 'foreign' });

/**
 * Where a refresh of `version` may leave the key for a call whose need is `need`, given what this provider knows of
 * the lease the version is on (`ownLease`: the pool's record of a lease it granted, leases/lease-pool.ts):
 * - `keep`: one of our leases that reaches the need on both scales already: write the value but leave the lease
 *   (`ignore_lease`), so the call still commits a write of its own — its revision is the fencing token, and a late
 *   revision-guarded release of an earlier tenure can no longer match;
 * - `move`: one of our leases that does not: put the key on a lease that reaches `reach` — the need, and the lease
 *   the key is on — so a refresh never moves a key onto a lease that ends earlier than the one it is on, and never
 *   shortens what an earlier call was promised. Both are compared on both of the clock's scales
 *   (leases/lease-choice.ts): a lease granted after a forward wall-clock step is not taken to end later than one
 *   granted before it, as its id alone would say.
 * - `foreign`: no lease, or one we cannot vouch for (another provider instance or program, or one of ours whose
 *   record has gone): the provider reads its TTL first (calls/adopt-foreign.ts).
 */
export function refreshChoice(versionLease: string, need: Reach, ownLease: (id: string) => PooledLease | undefined): RefreshChoice {
  const current = versionLease === '0' ? undefined : ownLease(versionLease);
  if (current === undefined) return FOREIGN;
  if (reaches(current, need)) return { kind: 'keep', onLease: current };
  return { kind: 'move', reach: reaches(need, current) ? need : later(need, current) };
}
