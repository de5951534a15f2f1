import { LeaseError } from './lease-error.js';

/** The TLS handshake failed (untrusted server certificate, missing client certificate, plaintext vs TLS). Never retried. */
export class EtcdTlsError extends LeaseError {
  readonly code = 'ELEASE_TLS' as const;
  readonly retryable = false;

  constructor(operation: string, detail: string, cause: unknown) {
    super(`${operation}: TLS certificate or handshake failure — ${detail}`, { cause });
  }
}
