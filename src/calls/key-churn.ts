import { AttemptRetryError } from '../transport/attempt-retry.js';

/**
 * The key was rewritten between the reads and writes of one attempt more often than POLICY.maxStepsPerAttempt
 * (another writer keeps changing it). The next attempt starts over after a backoff.
 */
export class KeyChurnError extends AttemptRetryError {
  constructor(operation: string) {
    super(`${operation}: the key changed under every step of the attempt`);
  }
}
