import { isIP, connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { Endpoint } from '../config/endpoint.js';

/** The TLS material the etcd3 client was given, in its shape. PEM contents. */
export interface ProbeCredentials {
  readonly rootCertificate?: Buffer;
  readonly privateKey?: Buffer;
  readonly certChain?: Buffer;
}

/**
 * What one endpoint answered.
 * - `tls-ok`: the TLS handshake succeeded — server certificate trusted (when checked), our certificate
 *   (if any) accepted — and the server answered the HTTP/2 preface gRPC sends;
 * - `tls-refused`: the endpoint speaks TLS but the handshake failed: `server-cert` when *we* do not
 *   trust its certificate (`code` is Node's verification code, e.g. `UNABLE_TO_VERIFY_LEAF_SIGNATURE`),
 *   `peer-alert` when the *server* ended it with a TLS alert (`code` like `ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE`),
 *   typically because it requires a client certificate we did not give or does not trust the one we gave;
 * - `tls-silent`: the handshake completed but the server then hung up or said nothing: it speaks TLS,
 *   but whether it accepted us is unknown (a server may drop a refused client without an alert);
 * - `plaintext`: no TLS, but the endpoint answered a cleartext HTTP/2 preface;
 * - `no-answer`: refused, reset, timed out: says nothing about TLS.
 */
export type TlsProbeResult =
  | { kind: 'tls-ok' }
  | { kind: 'tls-refused'; stage: 'server-cert' | 'peer-alert'; code: string }
  | { kind: 'tls-silent' }
  | { kind: 'plaintext' }
  | { kind: 'no-answer'; code?: string };

/** Client connection preface + an empty SETTINGS frame: what a gRPC client sends first (RFC 9113 §3.4). */
const H2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 0x04, 0, 0, 0, 0, 0]),
]);
/** An HTTP/2 server's first frame is SETTINGS: 3 length bytes, then the type byte. */
const H2_SETTINGS = 0x04;

/**
 * Asks one endpoint, with the client's own TLS material, whether TLS is what fails: a TLS handshake
 * (then the HTTP/2 preface, because under TLS 1.3 the server judges our certificate only after the
 * client considers the handshake done), and, when that attempt got no TLS answer at all, a cleartext
 * HTTP/2 preface. Nothing but the preface is sent; no etcd request is made.
 *
 * `credentials` undefined means the client is plaintext: the handshake is then tried without any
 * verification, only to learn whether the endpoint speaks TLS.
 */
export async function probeEndpoint(
  endpoint: Endpoint,
  credentials: ProbeCredentials | undefined,
  timeoutMs: number,
): Promise<TlsProbeResult> {
  const result = await tryTls(endpoint, credentials, timeoutMs);
  // Only an endpoint that answered — by closing or resetting the connection — may be speaking
  // cleartext; one that said nothing at all (paused, partitioned) would not answer that either.
  if (result.kind !== 'no-answer' || result.code === 'ETIMEDOUT' || result.code === 'ECONNREFUSED') return result;
  return (await answersCleartextH2(endpoint, timeoutMs)) ? { kind: 'plaintext' } : result;
}

function tryTls(endpoint: Endpoint, credentials: ProbeCredentials | undefined, timeoutMs: number): Promise<TlsProbeResult> {
  const options: ConnectionOptions = {
    host: endpoint.host,
    port: endpoint.port,
    // SNI only for names (RFC 6066 forbids IP addresses); identity is checked against the host either way.
    servername: isIP(endpoint.host) === 0 ? endpoint.host : undefined,
    ALPNProtocols: ['h2'],
    ca: credentials?.rootCertificate,
    key: credentials?.privateKey,
    cert: credentials?.certChain,
    // Verification is judged below from `authorized`/`authorizationError`, which Node sets from
    // OpenSSL's verify result and its host-name check: a typed code instead of an error message.
    rejectUnauthorized: false,
  };
  let handshaken = false;
  // On timeout: after a handshake the endpoint speaks TLS but never answered; before it, nothing is known.
  const onTimeout = (): TlsProbeResult => (handshaken ? { kind: 'tls-silent' } : { kind: 'no-answer', code: 'ETIMEDOUT' });
  return settle<TlsProbeResult>(timeoutMs, onTimeout, (finish) => {
    const socket: TLSSocket = connectTls(options);
    socket.once('secureConnect', () => {
      handshaken = true;
      if (credentials !== undefined && !socket.authorized) {
        finish({ kind: 'tls-refused', stage: 'server-cert', code: String(socket.authorizationError) });
        return;
      }
      socket.write(H2_PREFACE);
    });
    socket.once('data', () => finish({ kind: 'tls-ok' }));
    socket.on('error', (error: NodeJS.ErrnoException & { library?: unknown }) => {
      const code = error.code ?? 'UNKNOWN';
      // An error raised by OpenSSL itself (it carries `library`) is the TLS layer failing; after our
      // side finished the handshake, or as a received alert, it is the server refusing us.
      const fromOpenSsl = typeof error.library === 'string';
      if (fromOpenSsl && (handshaken || isReceivedAlert(code))) finish({ kind: 'tls-refused', stage: 'peer-alert', code });
      else finish(handshaken ? { kind: 'tls-silent' } : { kind: 'no-answer', code });
    });
    socket.once('end', () => finish(handshaken ? { kind: 'tls-silent' } : { kind: 'no-answer' }));
    return socket;
  });
}

function answersCleartextH2(endpoint: Endpoint, timeoutMs: number): Promise<boolean> {
  return settle<boolean>(timeoutMs, false, (finish) => {
    const socket: Socket = connectTcp({ host: endpoint.host, port: endpoint.port });
    socket.once('connect', () => socket.write(H2_PREFACE));
    socket.once('data', (chunk: Buffer) => finish(chunk.length >= 4 && chunk[3] === H2_SETTINGS));
    socket.on('error', () => finish(false));
    socket.once('end', () => finish(false));
    return socket;
  });
}

/**
 * OpenSSL names a received alert `…_ALERT_<description>` (e.g. ERR_SSL_TLSV1_ALERT_UNKNOWN_CA). Only
 * needed for alerts sent *during* our side of the handshake (TLS 1.2 servers asking for a client
 * certificate); under TLS 1.3 they arrive after it and `handshaken` already says enough.
 */
function isReceivedAlert(code: string): boolean {
  return code.startsWith('ERR_SSL_') && code.includes('_ALERT_');
}

/** Runs one socket exchange to its first outcome, or `onTimeout`; the socket is always destroyed. */
function settle<T>(timeoutMs: number, onTimeout: T | (() => T), start: (finish: (value: T) => void) => Socket): Promise<T> {
  const timedOut = (): T => (typeof onTimeout === 'function' ? (onTimeout as () => T)() : onTimeout);
  return new Promise<T>((resolve) => {
    let socket: Socket | undefined;
    let done = false;
    const finish = (value: T) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket?.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish(timedOut()), timeoutMs);
    timer.unref();
    try {
      socket = start(finish);
      if (done) socket.destroy();
    } catch {
      // Bad TLS material is caught when the client is built; anything else here means "no verdict".
      finish(timedOut());
    }
  });
}
