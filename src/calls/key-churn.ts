/**
 * The key was rewritten between the reads and writes of one attempt more often than POLICY.maxStepsPerAttempt
 * (another writer keeps changing it). Retryable: the next attempt starts over after a backoff.
 */
export class KeyChurnError extends Error {
  constructor(operation: string) {
    super(`${operation}: the key changed under every step of the attempt`);
    this.name = 'KeyChurnError';
  }
}
