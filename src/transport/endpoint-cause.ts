import { GRPCDeadlineExceededError, GRPCUnavailableError } from 'etcd3';
import type { EndpointCause } from '../errors/unavailable.js';
import type { TlsProbeResult } from './tls-probe.js';

/** Resolver codes Node reports for a name it cannot look up (getaddrinfo's, as libuv names them). */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * Why one endpoint failed, in the words its operator needs: refused, timed out, TLS or DNS. gRPC says
 * UNAVAILABLE for all of those alike (the reason only inside free text), so an UNAVAILABLE is explained by
 * the latest probe of that endpoint (tls-probe.ts), whose answer carries Node's typed error codes.
 *
 * @param failure the last error a call to the endpoint failed with (as etcd3 casts it)
 * @param probe   the latest probe of the endpoint, if one ran
 * @param secure  whether the client talks TLS (to tell a mismatch from a working endpoint)
 */
export function endpointCause(endpoint: string, failure: Error, probe: TlsProbeResult | undefined, secure: boolean): EndpointCause {
  if (failure instanceof GRPCDeadlineExceededError) {
    return { endpoint, kind: 'timeout', detail: 'did not answer within the attempt timeout' };
  }
  if (!(failure instanceof GRPCUnavailableError)) return { endpoint, kind: 'error', detail: `failed: ${failure.message}` };
  switch (probe?.kind) {
    case 'no-answer': {
      const code = probe.code;
      if (code === 'ECONNREFUSED') return { endpoint, kind: 'refused', detail: 'refused the connection (ECONNREFUSED)' };
      if (code === 'ETIMEDOUT') return { endpoint, kind: 'timeout', detail: 'did not answer a new connection in time' };
      if (code !== undefined && DNS_CODES.has(code)) return { endpoint, kind: 'dns', detail: `could not be looked up in DNS (${code})` };
      return { endpoint, kind: 'unavailable', detail: `closed the connection${code === undefined ? '' : ` (${code})`}` };
    }
    case 'tls-refused':
      return {
        endpoint,
        kind: 'tls',
        detail:
          probe.stage === 'server-cert'
            ? `failed the TLS handshake: its certificate is not trusted (${probe.code})`
            : `failed the TLS handshake: it refused the client (${probe.code})`,
      };
    case 'tls-silent':
      return { endpoint, kind: 'tls', detail: 'hung up after the TLS handshake (client certificate refused?)' };
    case 'plaintext':
      if (secure) return { endpoint, kind: 'tls', detail: 'serves plaintext, but the client uses TLS' };
      break;
    case 'tls-ok':
      if (!secure) return { endpoint, kind: 'tls', detail: 'serves TLS, but the client connects in plaintext' };
      break;
    case undefined:
      break;
  }
  // It accepts connections as configured (or was not probed yet): etcd itself could not serve, e.g. "no leader".
  return { endpoint, kind: 'unavailable', detail: `was unavailable: ${failure.message}` };
}
