import type { EtcdLeaseProvider } from '../provider-under-test.js';

/** Pause before sending a shed acquire again: a resend at once would add to the very load it was shed for. */
const SHED_PAUSE_MS = 50;
/** Long enough for the setup of any step to get through a busy moment; a key still shed after this is an error. */
const SETUP_DEADLINE_MS = 120_000;

/**
 * Takes `key` for `owner` before a hold starts. Taking many keys while those already taken renew can itself be
 * more than the cluster commits: an acquire shed with ELEASE_OVERLOADED is sent again after a pause, as a caller
 * retrying on its own schedule would; any other failure, or a key held by someone else, ends the setup.
 * Resolves with when the acquire that took the key was sent (performance.now()).
 */
export async function takeKey(provider: EtcdLeaseProvider, key: string, owner: string, ttlMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const sentAt = performance.now();
    try {
      if (!(await provider.acquireLease(key, owner, ttlMs)).acquired) throw new Error(`hold setup: ${key} is held by another owner`);
      return sentAt;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ELEASE_OVERLOADED' || performance.now() - started > SETUP_DEADLINE_MS) throw error;
      await new Promise((r) => setTimeout(r, SHED_PAUSE_MS));
    }
  }
}
