import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdUnavailableError } from '../errors/unavailable.js';
import { EtcdLeaseProvider } from '../provider.js';
import { freePorts } from '../../launcher/free-ports.js';

/**
 * The error a call that gives up reports names each endpoint's cause, not the circuit breaker that
 * stopped the last attempt. No etcd needed: a port nobody listens on refuses, and a server that accepts
 * connections and never says a word is a blackholed member as a client sees it.
 */
let silent: Server;
const held: Socket[] = [];
let silentEndpoint: string;
let refusedEndpoint: string;

beforeAll(async () => {
  silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentEndpoint = `127.0.0.1:${(silent.address() as { port: number }).port}`;
  refusedEndpoint = `127.0.0.1:${(await freePorts(1))[0]}`;
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

async function failure(hosts: string[]): Promise<EtcdUnavailableError> {
  const provider = new EtcdLeaseProvider({ hosts, deadlineMs: 2000 });
  try {
    const error = await provider.acquireLease('k', 'owner', 5000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EtcdUnavailableError);
    return error as EtcdUnavailableError;
  } finally {
    await provider.close();
  }
}

describe('EtcdUnavailableError names the cause per endpoint', () => {
  it('one endpoint refused, one silent: both causes, in the error and its message', { timeout: 15_000 }, async () => {
    const error = await failure([refusedEndpoint, silentEndpoint]);
    expect([...error.endpoints].sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual(
      [
        { endpoint: refusedEndpoint, kind: 'refused', detail: 'refused the connection (ECONNREFUSED)' },
        { endpoint: silentEndpoint, kind: 'timeout', detail: 'did not answer within the attempt timeout' },
      ].sort((a, b) => a.endpoint.localeCompare(b.endpoint)),
    );
    expect(error.message).toContain(`${refusedEndpoint} refused the connection (ECONNREFUSED)`);
    expect(error.message).toContain(`${silentEndpoint} did not answer within the attempt timeout`);
    expect(error.message).not.toMatch(/circuit breaker/i);
  });

  it('a name that does not resolve is a DNS failure', { timeout: 15_000 }, async () => {
    // .invalid never resolves (RFC 2606), here or anywhere.
    const error = await failure(['no-such-member.invalid:2379']);
    expect(error.endpoints).toEqual([{ endpoint: 'no-such-member.invalid:2379', kind: 'dns', detail: expect.stringMatching(/^could not be looked up in DNS \(E[A-Z_]+\)$/) }]);
  });
});
