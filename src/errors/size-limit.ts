import { LeaseError } from './lease-error.js';

/**
 * Which limit a message went over.
 * - `grpc-message`: a gRPC message larger than its receiver accepts — a response over this client's receive limit
 *   (gRPC's default, 4 MiB: a range of many keys, or one huge value), or a request over the server's
 *   (etcd's `--max-request-bytes` plus 512 KiB).
 * - `etcd-request`: a request over etcd's `--max-request-bytes` (default 1.5 MiB), refused before it reached Raft.
 */
export type SizeLimit = 'grpc-message' | 'etcd-request';

/**
 * A request or response is larger than gRPC or etcd allow. Sending the same request again gets the same answer, so
 * it is never retried — and it says nothing about the cluster's health, so it is never reported as unavailable.
 */
export class EtcdSizeLimitError extends LeaseError {
  readonly code = 'ELEASE_TOO_LARGE' as const;
  readonly retryable = false;

  constructor(
    readonly operation: string,
    readonly limit: SizeLimit,
    /** The message's size in bytes, when the receiver said. */
    readonly sizeBytes: number | undefined,
    /** The limit in bytes, when the receiver said. */
    readonly limitBytes: number | undefined,
    cause: unknown,
  ) {
    super(`${operation}: ${describe(limit, sizeBytes, limitBytes)}; sending it again cannot help`, { cause });
  }
}

function describe(limit: SizeLimit, sizeBytes: number | undefined, limitBytes: number | undefined): string {
  const message = sizeBytes === undefined ? 'a message' : `a message of ${sizeBytes} bytes`;
  if (limit === 'etcd-request') {
    return `etcd refused ${sizeBytes === undefined ? 'a request' : `a request of ${sizeBytes} bytes`} over its --max-request-bytes (${limitBytes ?? ETCD_DEFAULT_MAX_REQUEST_BYTES} bytes unless the server sets another)`;
  }
  return limitBytes === undefined ? `${message} is over its receiver's gRPC size limit` : `${message} is over its receiver's gRPC limit of ${limitBytes} bytes`;
}

/** etcd's default --max-request-bytes (1.5 MiB); the server does not say its own setting. */
const ETCD_DEFAULT_MAX_REQUEST_BYTES = 1_572_864;
