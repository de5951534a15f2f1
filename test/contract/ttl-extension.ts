import { elapse, waitFor } from '../support/wait.js';

/** Times are `performance.now()` milliseconds, taken just before a call is made (its send time). */
export interface TtlBounds {
  ttlMs: number;
  /** How long after (send time of the last write + ttlMs) the backend may still show the key: its late bound. */
  expirySlackMs: number;
}

export async function elapseUntil(at: number): Promise<void> {
  await elapse(Math.max(0, at - performance.now()));
}

/**
 * Keeps a key alive with `refresh` (a renew, a re-acquire, a transfer), sent every ttl/2, until the guarantee of
 * the last refresh — its SEND time + ttl — reaches well past `checkAt = firstSentAt + ttl + slack`, by which the
 * lease the first write used is gone for certain. A refresh that answers true without extending anything leaves
 * the key dead at `checkAt`; checking any earlier (inside the first lease's life, which pooling stretches by up to
 * the slack) could not tell the two apart.
 */
export async function refreshPastFirstLease(
  firstSentAt: number,
  { ttlMs, expirySlackMs }: TtlBounds,
  refresh: () => Promise<boolean>,
): Promise<{ checkAt: number; lastSentAt: number; answers: boolean[] }> {
  const checkAt = firstSentAt + ttlMs + expirySlackMs;
  const answers: boolean[] = [];
  let lastSentAt = firstSentAt;
  // Room after checkAt for the check's own read, still inside the last refresh's guarantee.
  while (lastSentAt + ttlMs < checkAt + ttlMs * 0.3) {
    await elapseUntil(lastSentAt + ttlMs / 2);
    lastSentAt = performance.now();
    answers.push(await refresh());
  }
  return { checkAt, lastSentAt, answers };
}

export interface ExpiryObservation {
  /** Send time of the last read that still saw the holder. */
  lastSeenSentAt: number;
  /** Return time of the first read that saw the key free: it was free at some moment before this. */
  goneAt: number;
}

/**
 * Polls until the key reads as free. Every read before that must name `holder` (no one else may get in).
 * "Never early" is then `goneAt >= sentAt + ttl` (a free read that returned before the guarantee ended proves an
 * early expiry); "bounded late" is `lastSeenSentAt <= sentAt + ttl + slack` (a read sent after the bound that
 * still saw the holder proves a late one).
 */
export async function observeExpiry(read: () => Promise<string | undefined>, holder: string, timeoutMs: number): Promise<ExpiryObservation> {
  let lastSeenSentAt = Number.NEGATIVE_INFINITY;
  const goneAt = await waitFor(
    `${holder}'s lease to expire`,
    async () => {
      const sentAt = performance.now();
      const owner = await read();
      if (owner === undefined) return performance.now();
      if (owner !== holder) throw new Error(`expected ${holder} or nobody to hold the key, read ${owner}`);
      lastSeenSentAt = sentAt;
      return undefined;
    },
    { timeoutMs, intervalMs: 50 },
  );
  return { lastSeenSentAt, goneAt };
}
