import { readFileSync } from 'node:fs';
import { createServer as createH2Server } from 'node:http2';
import { createServer as createTcpServer, type Server } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TlsDiagnosis } from '../../src/transport/tls-diagnosis.js';
import { parseEndpoint } from '../../src/config/endpoint.js';
import { probeEndpoint, type ProbeCredentials } from '../../src/transport/tls-probe.js';
import { freePorts } from '../../launcher/free-ports.js';
import { createTestPki, type TestPki } from '../harness/test-pki.js';

// The TLS probe behind EtcdTlsError, against small local servers that each fail in one way — including
// ways etcd on this machine does not (TLS 1.2 alerts during the handshake, a certificate for another name).

let pki: TestPki;
const servers: Server[] = [];
const sockets = new Set<{ destroy(): void }>();
const pem = (path: string) => readFileSync(path);

beforeAll(async () => {
  pki = await createTestPki();
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await pki?.remove();
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  // Raw connections, before any TLS: closing the servers must not wait for a peer that stays silent.
  server.on('connection', (socket: { destroy(): void; on(event: 'close', listener: () => void): void }) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** A TLS server answering any bytes with a few of its own (as an HTTP/2 server answers the preface with SETTINGS). */
function tlsServer(options: TlsOptions): Promise<number> {
  const server = createTlsServer({ key: pem(pki.server.key), cert: pem(pki.server.cert), ...options }, (socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])));
  });
  server.on('tlsClientError', () => {});
  return listen(server);
}

const probe = (port: number, credentials: ProbeCredentials | undefined, timeoutMs = 2000) =>
  probeEndpoint(parseEndpoint(`https://127.0.0.1:${port}`)!, credentials, timeoutMs);

describe('probeEndpoint', () => {
  it('a trusted server that answers: tls-ok', async () => {
    const port = await tlsServer({});
    expect(await probe(port, { rootCertificate: pem(pki.ca.cert) })).toEqual({ kind: 'tls-ok' });
  });

  it('a server certificate from an unknown CA: refused at server-cert with the verification code', async () => {
    const port = await tlsServer({});
    expect(await probe(port, { rootCertificate: pem(pki.untrustedCa.cert) })).toEqual({
      kind: 'tls-refused',
      stage: 'server-cert',
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('a certificate for another name: refused at server-cert, ERR_TLS_CERT_ALTNAME_INVALID', async () => {
    const other = await pki.serverCert('DNS:other.example');
    const port = await tlsServer({ key: pem(other.key), cert: pem(other.cert) });
    expect(await probe(port, { rootCertificate: pem(pki.ca.cert) })).toEqual({
      kind: 'tls-refused',
      stage: 'server-cert',
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it.each(['TLSv1.2', 'TLSv1.3'] as const)('a %s server requiring a client certificate we lack: refused by a peer alert', async (version) => {
    const port = await tlsServer({ minVersion: version, maxVersion: version, requestCert: true, rejectUnauthorized: true, ca: pem(pki.ca.cert) });
    const result = await probe(port, { rootCertificate: pem(pki.ca.cert) });
    expect(result).toMatchObject({ kind: 'tls-refused', stage: 'peer-alert' });
    expect((result as { code: string }).code).toMatch(/^ERR_SSL_/);
  });

  it('a client certificate the server drops without an alert: tls-silent, which alone proves nothing', async () => {
    // Node's TLS server checks client certificates after the handshake and just closes the socket; etcd
    // (Go) sends an alert instead, which client-cert-auth.test.ts shows becoming EtcdTlsError.
    const rogue = await pki.clientCert('rogue', 'untrustedCa');
    const port = await tlsServer({ requestCert: true, rejectUnauthorized: true, ca: pem(pki.ca.cert) });
    const result = await probe(port, { rootCertificate: pem(pki.ca.cert), certChain: pem(rogue.cert), privateKey: pem(rogue.key) });
    expect(result).toEqual({ kind: 'tls-silent' });
  });

  it('a cleartext HTTP/2 server: plaintext', async () => {
    const server = createH2Server();
    server.on('sessionError', () => {});
    const port = await listen(server as unknown as Server);
    expect(await probe(port, { rootCertificate: pem(pki.ca.cert) })).toEqual({ kind: 'plaintext' });
  });

  it('a plaintext client asks only whether the endpoint speaks TLS: it does, even with a client certificate required', async () => {
    const port = await tlsServer({ requestCert: true, rejectUnauthorized: true, ca: pem(pki.ca.cert) });
    expect((await probe(port, undefined)).kind).toMatch(/^tls-(ok|refused|silent)$/);
  });

  it('nothing listening, or a server that never answers: no-answer, within the timeout', async () => {
    const [closed] = await freePorts(1);
    expect(await probe(closed!, { rootCertificate: pem(pki.ca.cert) })).toEqual({ kind: 'no-answer', code: 'ECONNREFUSED' });
    const silent = createTcpServer((socket) => socket.on('error', () => {}));
    const port = await listen(silent);
    const startedAt = performance.now();
    expect(await probe(port, { rootCertificate: pem(pki.ca.cert) }, 300)).toMatchObject({ kind: 'no-answer' });
    expect(performance.now() - startedAt).toBeLessThan(1500);
  });
});

describe('TlsDiagnosis', () => {
  it('one endpoint that works as configured settles it at once, without waiting for a hung one', async () => {
    const silent = await listen(createTcpServer((socket) => socket.on('error', () => {})));
    const good = await tlsServer({});
    const diagnosis = new TlsDiagnosis([`https://127.0.0.1:${silent}`, `https://127.0.0.1:${good}`], { rootCertificate: pem(pki.ca.cert) }, 5000);
    const startedAt = performance.now();
    expect(await diagnosis.explain()).toBeUndefined();
    expect(performance.now() - startedAt).toBeLessThan(1000);
  });

  it('a finding is reused for the next failures instead of probing again', async () => {
    const port = await tlsServer({});
    let connections = 0;
    servers.at(-1)!.on('connection', () => connections++);
    const diagnosis = new TlsDiagnosis([`https://127.0.0.1:${port}`], { rootCertificate: pem(pki.untrustedCa.cert) }, 2000);
    const [first, second] = await Promise.all([diagnosis.explain(), diagnosis.explain()]);
    expect(first?.detail).toMatch(/is not trusted/);
    expect(second).toBe(first);
    expect(await diagnosis.explain()).toBe(first);
    expect(diagnosis.recent()).toBe(first);
    expect(connections).toBe(1);
  });
});
