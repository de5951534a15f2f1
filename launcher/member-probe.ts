import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClusterTls, MemberStatus } from './types.js';

/**
 * Questions asked of one member directly on its own client port, bypassing its proxy: the
 * cluster must see the truth about a member even while the callers' view of it is faulted.
 * Plain HTTP/1.1 (etcd serves /health and the gRPC gateway beside gRPC on the client port),
 * one connection per probe, so nothing lingers when a member is killed or paused.
 * A TLS member is asked over HTTPS, trusting the cluster's CA and presenting the member certificate
 * as client certificate (accepted under --client-cert-auth: it carries the clientAuth usage).
 */

/** The TLS side of a probe, read once per cluster: PEM contents, not paths. */
export interface ProbeTls {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export function probeTls(tls: ClusterTls | undefined): ProbeTls | undefined {
  if (tls === undefined) return undefined;
  return { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) };
}

/** True when the member has a leader and can get a quorum read through raft (etcd's /health). */
export async function isMemberHealthy(clientPort: number, timeoutMs: number, tls?: ProbeTls): Promise<boolean> {
  const body = await httpCall(clientPort, 'GET', '/health', undefined, timeoutMs, tls);
  return (parseJson(body) as { health?: unknown } | undefined)?.health === 'true';
}

/** The member's own view of the cluster, or undefined when it does not answer in time. */
export async function fetchMemberStatus(
  clientPort: number,
  timeoutMs: number,
  tls?: ProbeTls,
): Promise<MemberStatus | undefined> {
  const body = await httpCall(clientPort, 'POST', '/v3/maintenance/status', '{}', timeoutMs, tls);
  const status = parseJson(body) as { header?: { member_id?: string }; leader?: string; raftTerm?: string } | undefined;
  if (status?.header?.member_id === undefined) return undefined;
  return {
    memberId: status.header.member_id,
    leaderId: status.leader ?? '0',
    raftTerm: Number(status.raftTerm ?? 0),
  };
}

/**
 * Asks the leader on `clientPort` to hand leadership to the member `targetId` (MoveLeader through the gateway). True
 * once the leader says it has; false when it refuses (not the leader any more) or does not answer in time.
 */
export async function transferLeadership(clientPort: number, targetId: string, timeoutMs: number, tls?: ProbeTls): Promise<boolean> {
  const body = JSON.stringify({ targetID: targetId });
  return (await httpCall(clientPort, 'POST', '/v3/maintenance/transfer-leadership', body, timeoutMs, tls)) !== undefined;
}

/** A member cut off mid-answer sends a truncated body: treat it like no answer. */
function parseJson(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The response body of a 2xx answer; undefined for any failure, since callers poll anyway. */
function httpCall(
  port: number,
  method: 'GET' | 'POST',
  path: string,
  body: string | undefined,
  timeoutMs: number,
  tls: ProbeTls | undefined,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const options: RequestOptions = {
      host: '127.0.0.1',
      port,
      method,
      path,
      agent: false,
      timeout: timeoutMs,
      headers: { 'content-type': 'application/json' },
    };
    const respond = (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(res.statusCode !== undefined && res.statusCode < 300 ? text : undefined));
      res.on('error', () => resolve(undefined));
    };
    const req = tls === undefined ? httpRequest(options, respond) : httpsRequest({ ...options, ...tls }, respond);
    // `timeout` only covers idle sockets; the deadline covers a member that accepts and stalls.
    const deadline = setTimeout(() => req.destroy(), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}
