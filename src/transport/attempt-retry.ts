/**
 * Raised by an attempt's own steps, not by etcd, when this attempt cannot finish but a later one may (the key kept
 * changing under it, say): the runner classifies it as retryable and sends the next attempt after its backoff.
 * It never reaches a caller as such: a call that runs out of budget rejects with EtcdUnavailableError, this as its
 * cause.
 */
export class AttemptRetryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
