import type { Endpoint } from '../config/endpoint.js';
import type { TlsProbeResult } from './tls-probe.js';

/** How the client was configured: `secure` when it has `credentials` or `https://` endpoints (etcd3's own rule). */
export interface ClientTlsSetup {
  readonly secure: boolean;
  /** A client certificate was given (`credentials.certChain` + `privateKey`). */
  readonly hasClientCertificate: boolean;
}

/** A TLS misconfiguration, worded for the person who has to fix it. */
export interface TlsFinding {
  readonly detail: string;
  /** The code the probe saw (Node/OpenSSL), when there was one. */
  readonly code: string | undefined;
}

/**
 * Decides from every endpoint's probe whether TLS setup is why calls fail.
 * Only when no endpoint works the way the client is configured and at least one answered in a way
 * that contradicts that configuration: one member with a bad certificate among good ones is a member
 * problem the retry policy routes around, not a reason to stop retrying.
 */
export function tlsVerdict(setup: ClientTlsSetup, probes: ReadonlyArray<readonly [Endpoint, TlsProbeResult]>): TlsFinding | undefined {
  if (probes.some(([, result]) => worksAsConfigured(setup, result))) return undefined;
  for (const [endpoint, result] of probes) {
    const finding = explain(setup, endpoint, result);
    if (finding) return finding;
  }
  return undefined;
}

/** The endpoint answered the way the client is configured to talk: whatever fails, it is not TLS setup. */
export function worksAsConfigured(setup: ClientTlsSetup, result: TlsProbeResult): boolean {
  return setup.secure ? result.kind === 'tls-ok' : result.kind === 'plaintext';
}

function explain(setup: ClientTlsSetup, endpoint: Endpoint, result: TlsProbeResult): TlsFinding | undefined {
  const at = endpoint.text;
  if (!setup.secure) {
    if (result.kind === 'tls-ok' || result.kind === 'tls-refused' || result.kind === 'tls-silent') {
      return {
        detail: `${at} serves TLS but the client connects in plaintext: use https:// endpoints and set credentials.rootCertificate to the CA of the etcd server certificates`,
        code: result.kind === 'tls-refused' ? result.code : undefined,
      };
    }
    return undefined;
  }
  switch (result.kind) {
    case 'plaintext':
      return {
        detail: `${at} serves plaintext but the client uses TLS: use http:// endpoints without credentials, or serve TLS from etcd (--cert-file, --key-file)`,
        code: undefined,
      };
    case 'tls-refused':
      if (result.stage === 'server-cert') {
        const hostName = result.code === 'ERR_TLS_CERT_ALTNAME_INVALID' || result.code === 'HOSTNAME_MISMATCH';
        return {
          detail: hostName
            ? `the server certificate of ${at} does not name ${endpoint.host} (${result.code}): connect by a name or IP address in its subjectAltName`
            : `the server certificate of ${at} is not trusted (${result.code}): set credentials.rootCertificate to the CA that signed the etcd server certificates`,
          code: result.code,
        };
      }
      return {
        detail: setup.hasClientCertificate
          ? `${at} refused the client certificate (${result.code}): it must be signed by the CA in etcd's --trusted-ca-file, unexpired, with the clientAuth usage`
          : `${at} requires a client certificate (${result.code}; etcd runs with --client-cert-auth): set credentials.certChain and credentials.privateKey`,
        code: result.code,
      };
    default:
      return undefined;
  }
}
