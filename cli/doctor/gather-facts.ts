import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { noop } from 'cockatiel';
import { Etcd3, type IOptions } from 'etcd3';
import { clientOptions, type ConnectionSettings } from '../connection.js';
import type { AccessProbe, ClusterFacts, CompactionFacts, MemberFacts, MemberMetrics, ProbeOutcome, UsageFacts } from './facts.js';

/** A key under each prefix that the doctor reads and "writes" (a transaction that cannot commit): never stored. */
const PROBE_NAME = '.etcd-lease-doctor-probe';

/**
 * Reads everything the checks judge. Each member is asked on a connection of its own (Status, /metrics), so one
 * member that hangs costs its own deadline and not the others'; cluster-wide reads (member list, alarms, the
 * compaction search, the access probes, the key counts) go to the first member that answered Status. Every request
 * is a read, or a transaction whose compare can never hold: the doctor writes nothing.
 */
export async function gatherFacts(settings: ConnectionSettings, eventPrefix: string): Promise<ClusterFacts> {
  const options = clientOptions(settings);
  const connection: IOptions = {
    hosts: settings.hosts,
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    dialTimeout: settings.timeoutMs,
    // One attempt per request: the doctor reports what it sees, it does not retry its way past a fault.
    faultHandling: { host: () => noop, global: noop },
  };
  const deadline = (): { deadline: Date } => ({ deadline: new Date(Date.now() + settings.timeoutMs) });
  const clients = settings.hosts.map((host) => new Etcd3({ ...connection, hosts: [host] }));
  try {
    const members = await Promise.all(settings.hosts.map((endpoint, i) => memberFacts(endpoint, clients[i]!, settings, deadline)));
    const facts: ClusterFacts = {
      endpoints: settings.hosts,
      prefix: settings.prefix,
      eventPrefix,
      members,
      access: { ...(settings.username === undefined ? {} : { username: settings.username }), probes: [] },
      tls: tlsFacts(settings),
      usage: {},
      unreadable: {},
    };
    const answering = members.findIndex((m) => m.status !== undefined || m.refused === true);
    if (answering < 0) return facts;
    const client = clients[answering]!;
    const section = async <T>(name: string, read: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await read();
      } catch (error) {
        facts.unreadable[name] = message(error);
        return undefined;
      }
    };
    const list = await section('member list', () => client.cluster.memberList({}, deadline()));
    if (list !== undefined) {
      facts.memberList = list.members.map((m) => ({ id: hexId(m.ID), name: m.name, clientUrls: m.clientURLs, isLearner: m.isLearner ?? false }));
    }
    const alarms = await section('alarms', () => client.maintenance.alarm({ action: 'Get' }, deadline()));
    if (alarms !== undefined) facts.alarms = alarms.alarms.map((a) => ({ memberId: hexId(a.memberID), alarm: String(a.alarm).toUpperCase() }));
    const compaction = await section('compaction', () => compactionFacts(client, Buffer.from(settings.prefix + PROBE_NAME), deadline));
    if (compaction !== undefined) facts.compaction = compaction;
    facts.access.probes = await accessProbes(client, settings.prefix, eventPrefix, deadline);
    if (settings.username !== undefined) {
      // Listing users needs the root role on every version (a user may read its own record on some).
      facts.access.readsAuthRecords = await client.auth.userList(deadline()).then(
        () => true,
        () => false,
      );
    }
    facts.usage = await usageFacts(client, settings.prefix, eventPrefix, deadline);
    return facts;
  } finally {
    for (const client of clients) client.close();
  }
}

async function memberFacts(endpoint: string, client: Etcd3, settings: ConnectionSettings, deadline: () => { deadline: Date }): Promise<MemberFacts> {
  const facts: MemberFacts = { endpoint };
  try {
    const status = await client.maintenance.status(deadline());
    facts.status = {
      memberId: hexId(status.header.member_id),
      version: status.version,
      dbSizeBytes: Number(status.dbSize),
      dbSizeInUseBytes: Number(status.dbSizeInUse ?? status.dbSize),
      leaderId: hexId(status.leader),
      raftTerm: Number(status.raftTerm),
      raftIndex: Number(status.raftIndex),
      raftAppliedIndex: Number(status.raftAppliedIndex ?? status.raftIndex),
      errors: status.errors ?? [],
      isLearner: status.isLearner ?? false,
    };
  } catch (error) {
    facts.error = message(error);
    if (isPermissionDenied(error)) facts.refused = true;
    return facts;
  }
  const metrics = await readMetrics(endpoint, settings).catch(() => undefined);
  if (metrics !== undefined) facts.metrics = metrics;
  return facts;
}

/**
 * The oldest readable revision, found by bisection: a read at a revision below the last compaction fails with
 * "required revision has been compacted". Serializable, count-only reads of one key: a few dozen small requests.
 */
async function compactionFacts(client: Etcd3, key: Buffer, deadline: () => { deadline: Date }): Promise<CompactionFacts> {
  const readAt = async (revision: number): Promise<boolean> => {
    try {
      await client.kv.range({ key, count_only: true, serializable: true, revision: String(revision) }, deadline());
      return true;
    } catch (error) {
      if (/compacted/i.test(message(error))) return false;
      throw error;
    }
  };
  const now = await client.kv.range({ key, count_only: true, serializable: true }, deadline());
  const revision = Number(now.header.revision);
  let low = 1;
  let high = revision;
  // Invariant: `high` is readable; everything below `low` is not.
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (await readAt(middle)) high = middle;
    else low = middle + 1;
  }
  return { revision, oldestReadable: high };
}

/**
 * What the connected identity may do: under the lease prefix and the event prefix it needs to read and write;
 * beside them (the prefix's parent folder) and at the top level it should be able to do neither. A write is probed
 * with a transaction whose compare (a create revision below 0) never holds: etcd checks the permission of every
 * operation of a transaction before it evaluates the compare, so "denied" answers the question and nothing is written.
 */
async function accessProbes(client: Etcd3, prefix: string, eventPrefix: string, deadline: () => { deadline: Date }): Promise<AccessProbe[]> {
  const parent = prefix.replace(/[^/]*\/?$/, '');
  const places: Array<[string, string]> = [
    ['lease prefix', prefix + PROBE_NAME],
    ['event prefix', eventPrefix + PROBE_NAME],
    ...(parent !== '' && !eventPrefix.startsWith(parent + PROBE_NAME) ? ([['beside the prefixes', parent + PROBE_NAME]] as Array<[string, string]>) : []),
    ['top level', PROBE_NAME],
  ];
  const outcome = (promise: Promise<unknown>): Promise<ProbeOutcome> =>
    promise.then(
      () => 'allowed' as const,
      (error: unknown) => (isPermissionDenied(error) ? ('denied' as const) : ('failed' as const)),
    );
  return Promise.all(
    places.map(async ([where, key]) => {
      const bytes = Buffer.from(key);
      const read = await outcome(client.kv.range({ key: bytes, count_only: true }, deadline()));
      const write = await outcome(
        client.kv.txn(
          {
            compare: [{ key: bytes, target: 'Create', result: 'Less', create_revision: '0' }],
            success: [{ request_put: { key: bytes, value: Buffer.from('never written') } }],
            failure: [],
          },
          deadline(),
        ),
      );
      return { where, key, read, write };
    }),
  );
}

async function usageFacts(client: Etcd3, prefix: string, eventPrefix: string, deadline: () => { deadline: Date }): Promise<UsageFacts> {
  const usage: UsageFacts = {};
  try {
    let leaseKeys = 0;
    let withoutLease = 0;
    let from = Buffer.from(prefix);
    const end = prefixEnd(Buffer.from(prefix));
    // Page by page at one revision: a large cluster is read in pieces, never in one response.
    let revision: string | undefined;
    for (;;) {
      const page = await client.kv.range({ key: from, range_end: end, keys_only: true, limit: '1000', ...(revision === undefined ? {} : { revision }) }, deadline());
      revision ??= page.header.revision;
      for (const kv of page.kvs) {
        leaseKeys += 1;
        if (kv.lease === '0' || kv.lease === undefined) withoutLease += 1;
      }
      if (!page.more || page.kvs.length === 0) break;
      from = Buffer.concat([page.kvs[page.kvs.length - 1]!.key, Buffer.from([0])]);
    }
    usage.leaseKeys = leaseKeys;
    usage.leaseKeysWithoutLease = withoutLease;
    const events = await client.kv.range({ key: Buffer.from(eventPrefix), range_end: prefixEnd(Buffer.from(eventPrefix)), count_only: true }, deadline());
    usage.eventKeys = Number(events.count);
  } catch (error) {
    usage.error = message(error);
  }
  try {
    usage.etcdLeases = (await client.leaseClient.leaseLeases(deadline())).leases.length;
  } catch {
    // Some roles may not list leases; the count is informational.
  }
  return usage;
}

/** The series of a member's /metrics page the checks use (the client port serves it, with the client's TLS). */
async function readMetrics(endpoint: string, settings: ConnectionSettings): Promise<MemberMetrics> {
  const url = new URL('/metrics', endpoint.includes('://') ? endpoint : `http://${endpoint}`);
  const text = await new Promise<string>((resolve, reject) => {
    const tls = url.protocol === 'https:';
    const read = (path: string | undefined): Buffer | undefined => (path === undefined ? undefined : readFileSync(path));
    const request = (tls ? httpsRequest : httpRequest)(
      url,
      { timeout: settings.timeoutMs, ...(tls ? { ca: read(settings.caFile), cert: read(settings.certFile), key: read(settings.keyFile) } : {}) },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`/metrics answered ${response.statusCode}`));
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('/metrics timed out')));
    request.on('error', reject);
    request.end();
  });
  const values = parseMetricValues(text);
  const metrics: MemberMetrics = {};
  const pick = (name: string): number | undefined => values.get(name);
  const quota = pick('etcd_server_quota_backend_bytes');
  const changes = pick('etcd_server_leader_changes_seen_total');
  const hasLeader = pick('etcd_server_has_leader');
  if (quota !== undefined) metrics.quotaBackendBytes = quota;
  if (changes !== undefined) metrics.leaderChangesSeen = changes;
  if (hasLeader !== undefined) metrics.hasLeader = hasLeader;
  return metrics;
}

/** The value of each unlabelled series (or the first series of a name) in Prometheus's text format. */
export function parseMetricValues(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match === null || values.has(match[1]!)) continue;
    const value = Number(match[3]);
    if (Number.isFinite(value)) values.set(match[1]!, value);
  }
  return values;
}

function tlsFacts(settings: ConnectionSettings): ClusterFacts['tls'] {
  const endpoints = settings.hosts.map((endpoint) => {
    const url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
    return { endpoint, tls: url.protocol === 'https:', loopback };
  });
  const certificates: ClusterFacts['tls']['certificates'] = [];
  for (const [file, role] of [
    [settings.caFile, 'CA'],
    [settings.certFile, 'client'],
  ] as const) {
    if (file === undefined) continue;
    try {
      const certificate = new X509Certificate(readFileSync(file));
      certificates.push({ file, role, notAfter: new Date(certificate.validTo).toISOString(), subject: certificate.subject.replace(/\n/g, ', ') });
    } catch {
      // The connection settings were checked already; a file that is not one certificate is not judged here.
    }
  }
  return { endpoints, certificates };
}

function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

function hexId(id: string | undefined): string {
  if (id === undefined || id === '') return '0';
  try {
    return BigInt(id).toString(16);
  } catch {
    return id;
  }
}

function isPermissionDenied(error: unknown): boolean {
  return /permission denied|user name is empty|invalid auth token/i.test(message(error));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
