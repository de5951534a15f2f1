import type { EtcdLeaseProvider } from '../provider-under-test.js';

/** Longest a hold's setup keeps asking for one key that the provider sheds (ELEASE_OVERLOADED: not sent). */
const SETUP_RETRY_MS = 60_000;

/**
 * Acquires a fresh key for a hold's setup, as a caller past the provider's capacity would: a call the provider shed
 * (ELEASE_OVERLOADED: it was never sent) is asked again after a pause that grows with each refusal, for up to a
 * minute. Past capacity the setup itself — a burst of acquires on top of the renewals of keys already taken — is
 * what sheds first; without this a step would fail before its keys are ever held, and the hold would measure nothing.
 * Any other failure, or a key someone else holds, fails the setup. Resolves with the send time (performance.now()) of
 * the acquire that won.
 */
export async function setupAcquire(provider: EtcdLeaseProvider, key: string, owner: string, ttlMs: number): Promise<number> {
  const giveUpAt = performance.now() + SETUP_RETRY_MS;
  for (let refusals = 1; ; refusals++) {
    const sentAt = performance.now();
    try {
      if ((await provider.acquireLease(key, owner, ttlMs)).acquired) return sentAt;
      throw new Error(`hold setup: ${JSON.stringify(key)} is held by someone else`);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ELEASE_OVERLOADED' || performance.now() > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * refusals)));
    }
  }
}
