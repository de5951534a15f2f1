import { isLeaseError } from '../src/errors/lease-error.js';
import { EtcdSizeLimitError } from '../src/errors/size-limit.js';
import { MAX_ENTRY_BYTES } from '../src/keys/key-codec.js';

/** Where the endpoints the command dialled came from: the hint names them only when the user gave them. */
export type EndpointsGiven = { by: 'default' } | { by: '--endpoints' | 'ETCD_ENDPOINTS'; list: string };

/** Where a command line's endpoints come from (a flag wins over the variable; an empty variable counts as unset). */
export function endpointsGiven(argv: readonly string[], env: NodeJS.ProcessEnv): EndpointsGiven {
  const flagAt = argv.findIndex((arg) => arg === '--endpoints' || arg.startsWith('--endpoints='));
  if (flagAt >= 0) {
    const arg = argv[flagAt] as string;
    return { by: '--endpoints', list: arg.startsWith('--endpoints=') ? arg.slice('--endpoints='.length) : (argv[flagAt + 1] ?? '') };
  }
  const fromEnv = env.ETCD_ENDPOINTS?.trim();
  return fromEnv ? { by: 'ETCD_ENDPOINTS', list: fromEnv } : { by: 'default' };
}

/** Commands whose requests are small reads: a size limit they meet is a response's. */
const READS = new Set(['list', 'get', 'stats', 'watch']);

/**
 * The line printed under an error to say what to do about it, or '' when the error says enough. Keyed by the
 * error's stable code (and, for size limits, by which command met them: a read's request is tiny, so its size
 * error is the response's).
 */
export function errorHint(error: unknown, command: string | undefined, endpoints: EndpointsGiven = { by: 'default' }): string {
  if (!isLeaseError(error)) return '';
  switch (error.code) {
    case 'ELEASE_UNAVAILABLE':
      return endpoints.by === 'default'
        ? 'Is etcd running at 127.0.0.1:2379 (the default)? Give the cluster with --endpoints or ETCD_ENDPOINTS.'
        : `Is etcd running at ${endpoints.list} (from ${endpoints.by})?`;
    case 'ELEASE_TOO_LARGE':
      if (error instanceof EtcdSizeLimitError && error.limit === 'grpc-message' && command !== undefined && READS.has(command)) {
        return (
          "One lease's value alone is over gRPC's response limit: listings are read in pages that shrink until they fit (--page-size " +
          `sets the most keys per page), so only a single oversized value fails. EtcdLeaseProvider never writes more than ${MAX_ENTRY_BYTES} bytes per lease; ` +
          'look for the key with etcdctl (get --prefix --keys-only) and remove what another program wrote there.'
        );
      }
      return `The request is over the etcd server's size limit (--max-request-bytes, 1.5 MiB by default); EtcdLeaseProvider keeps a key with its owner and metadata to ${MAX_ENTRY_BYTES} bytes, so check the server's setting.`;
    case 'ELEASE_COMPACTED':
      return 'etcd compacted the snapshot this listing was reading while it read it: run the command again.';
    default:
      return '';
  }
}
