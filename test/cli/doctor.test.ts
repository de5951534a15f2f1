import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../launcher/free-ports.js';
import type { Finding } from '../../cli/doctor/finding.js';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';
import { cleanEnv, runCli, type CliResult } from './support/cli-process.js';
import { TlsEtcd } from './support/tls-etcd.js';

// `etcd-lease doctor` against real clusters set up right and set up wrong, on whichever etcd the run uses (CI runs
// this file on 3.4 and on 3.5). The judgements themselves are unit-tested on hand-made facts (cli/doctor/); these
// tests show that the facts are read right from etcd and that the exit code follows them.

const PREFIX = 'shop/lease/';
const EVENT_PREFIX = 'shop/events/';
const ROOT = { user: 'root', password: 'root-secret' };
const APP = { user: 'app', password: 'app-secret' };

interface DoctorJson {
  findings: Finding[];
  needsFixing: boolean;
  facts: { members: Array<{ status?: { version: string } }> };
}

async function doctor(endpoints: string[], extra: string[] = []): Promise<{ result: CliResult; json: DoctorJson }> {
  const args = ['doctor', '--endpoints', endpoints.join(','), '--prefix', PREFIX, ...extra];
  const result = await runCli([...args, '--json'], cleanEnv(), 60_000);
  if (result.stdout.trim() === '') throw new Error(`doctor printed nothing (exit ${result.code}): ${result.stderr}`);
  return { result, json: JSON.parse(result.stdout) as DoctorJson };
}

function levels(json: DoctorJson, check: string): string[] {
  return json.findings.filter((f) => f.check === check).map((f) => f.level);
}

function problems(json: DoctorJson): string[] {
  return json.findings.filter((f) => f.level === 'warn' || f.level === 'fail').map((f) => `${f.level} ${f.check}: ${f.summary}`);
}

/** Root, and an application user whose one role reaches `ranges` (prefixes); then auth on. */
async function enableAuth(endpoints: string[], ranges: string[]): Promise<void> {
  const admin = new Etcd3({ hosts: endpoints });
  try {
    await admin.role('root').create();
    await admin.user(ROOT.user).create(ROOT.password);
    await admin.user(ROOT.user).addRole('root');
    const role = await admin.role('shop-app').create();
    for (const prefix of ranges) await role.grant({ permission: 'Readwrite', range: admin.range({ prefix }) });
    await admin.user(APP.user).create(APP.password);
    await admin.user(APP.user).addRole('shop-app');
    await admin.auth.authEnable({});
  } finally {
    admin.close();
  }
}

function version(json: DoctorJson): string {
  return json.facts.members.find((m) => m.status !== undefined)?.status?.version ?? '?';
}

describe('etcd-lease doctor on a cluster set up right', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    // Auto-compaction every second (periodic mode: a retention under an hour is also its interval).
    cluster = await startCluster({ extraArgs: ['--auto-compaction-mode=periodic', '--auto-compaction-retention=1s'] });
    await enableAuth(cluster.endpoints(), [PREFIX, EVENT_PREFIX]);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('finds nothing to fix, exits 0, and sees the compaction, the least-privilege role and the keys', async () => {
    const root = new Etcd3({ hosts: cluster.endpoints(), auth: { username: ROOT.user, password: ROOT.password } });
    try {
      const lease = root.lease(30, { autoKeepAlive: false });
      await lease.put(`${PREFIX}thread-1`).value('run-1');
      // Revisions for the compactor to move past, until a read at revision 1 is refused as compacted.
      await waitFor(
        'auto-compaction',
        async () => {
          await root.put('shop/tick').value(String(Date.now()));
          return root.get(`${PREFIX}thread-1`).revision('1').then(
            () => false,
            (error: unknown) => /compacted/.test(String(error)),
          );
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      await lease.put(`${PREFIX}thread-2`).value('run-2');
    } finally {
      root.close();
    }

    const { result, json } = await doctor(cluster.endpoints(), ['--user', APP.user, '--password', APP.password]);
    expect(problems(json), `etcd ${version(json)}`).toEqual([]);
    expect(result.code).toBe(0);
    expect(levels(json, 'compaction')).toEqual(['ok']);
    expect(levels(json, 'auth')).toEqual(['ok']);
    expect(levels(json, 'permissions')).toEqual(['ok']);
    expect(json.findings.find((f) => f.check === 'keys')?.summary).toMatch(/^2 lease key\(s\) under shop\/lease\/, 0 key\(s\) under shop\/events\//);

    const human = await runCli(['doctor', '--endpoints', cluster.endpoints().join(','), '--prefix', PREFIX, '--user', APP.user, '--password', APP.password], cleanEnv(), 60_000);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Nothing to fix/m);
    for (const line of human.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});

describe('etcd-lease doctor on a cluster set up wrong', () => {
  const QUOTA_BYTES = 16 * 1024 * 1024;
  let cluster: TestCluster;
  let root: Etcd3;
  beforeAll(async () => {
    // No auto-compaction, a small quota, and an application role on the whole `shop/` folder.
    cluster = await startCluster({ extraArgs: [`--quota-backend-bytes=${QUOTA_BYTES}`] });
    await enableAuth(cluster.endpoints(), ['shop/']);
    root = new Etcd3({ hosts: cluster.endpoints(), auth: { username: ROOT.user, password: ROOT.password } });
  });
  afterAll(async () => {
    root?.close();
    await cluster?.stop();
  });

  it('flags the missing compaction, the small quota, the wide role, a member left out of the endpoints and a key without a lease', async () => {
    // More than 10 000 revisions, none compacted.
    for (let i = 0; i < 10_100; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => root.put(`shop/churn/${j}`).value(String(i + j))));
    }
    await root.put(`${PREFIX}left-by-hand`).value('someone');

    const { result, json } = await doctor(cluster.endpoints().slice(0, 2), ['--user', APP.user, '--password', APP.password]);
    expect(result.code).toBe(1);
    expect(json.needsFixing).toBe(true);
    expect(levels(json, 'compaction')).toEqual(['warn']);
    expect(json.findings.find((f) => f.check === 'compaction')?.summary).toMatch(/never compacted/);
    // Member details (db size, quota) need admin rights on etcd 3.5 (Status is refused to the application's user there).
    const details = await doctor(cluster.endpoints(), ['--user', ROOT.user, '--password', ROOT.password]);
    expect(details.json.findings.find((f) => f.check === 'quota' && f.level === 'warn')?.summary).toMatch(/16 MiB quota .*small quota/);
    expect(json.findings.find((f) => f.check === 'permissions' && f.level === 'warn')?.summary).toMatch(/beyond the prefixes: read\+write at "shop\/\.etcd-lease-doctor-probe"/);
    expect(json.findings.find((f) => f.check === 'members' && f.level === 'warn')?.summary).toMatch(/1 of 3 cluster members are not among the endpoints given/);
    expect(json.findings.find((f) => f.check === 'keys' && f.level === 'warn')?.summary).toMatch(/^1 key\(s\) under shop\/lease\/ have no etcd lease/);
    // The probes wrote nothing.
    expect((await root.getAll().prefix('').keys()).filter((k) => k.includes('etcd-lease-doctor-probe'))).toEqual([]);
  });

  it('flags a root user, and a NOSPACE alarm as a failure', async () => {
    const asRoot = await doctor(cluster.endpoints(), ['--user', ROOT.user, '--password', ROOT.password]);
    expect(asRoot.json.findings.find((f) => f.check === 'auth')?.summary).toMatch(/has the root role/);

    const big = Buffer.alloc(512 * 1024, 7);
    for (let i = 0; i < 200; i++) {
      const full = await root
        .put(`shop/filler/${i % 4}`)
        .value(big)
        .then(
          () => false,
          (error: unknown) => /database space exceeded/.test(String(error)),
        );
      if (full) break;
    }
    await waitFor('the NOSPACE alarm', async () => (await root.maintenance.alarm({ action: 'Get' })).alarms.length > 0, { timeoutMs: 10_000 });
    const { result, json } = await doctor(cluster.endpoints(), ['--user', ROOT.user, '--password', ROOT.password]);
    expect(result.code).toBe(1);
    expect(levels(json, 'alarms')).toEqual(['fail']);
    expect(json.findings.find((f) => f.check === 'alarms')?.summary).toMatch(/NOSPACE/);
    expect(levels(json, 'quota')).toContain('fail');
  });
});

describe('etcd-lease doctor over TLS, and with nothing to reach', () => {
  let etcd: TlsEtcd | undefined;
  afterAll(async () => {
    await etcd?.stop();
  });

  it('reads a TLS member (its /metrics page with the client certificate too) and reports the certificates', async () => {
    etcd = await TlsEtcd.start();
    const { json } = await doctor([etcd.endpoint], ['--cacert', etcd.files.ca, '--cert', etcd.files.cert, '--key', etcd.files.key]);
    // Every endpoint is TLS; the test PKI's certificates live a day, so both are reported as expiring soon.
    expect(levels(json, 'tls')).toEqual(['ok', 'warn', 'warn']);
    const expiring = json.findings.filter((f) => f.check === 'tls' && f.level === 'warn').map((f) => f.summary);
    expect(expiring).toEqual([expect.stringMatching(/^the CA certificate .* expires \d{4}-\d\d-\d\d$/), expect.stringMatching(/^the client certificate .* expires /)]);
    expect(levels(json, 'quota')).toEqual(['ok']);
    expect(json.findings.find((f) => f.check === 'quota')?.summary).toMatch(/of a 2048 MiB quota/);
  });

  it('exits 1 with a failure when no endpoint answers', async () => {
    const [port] = await freePorts(1);
    const { result, json } = await doctor([`127.0.0.1:${port}`], ['--timeout', '1000']);
    expect(result.code).toBe(1);
    expect(levels(json, 'members')).toEqual(['fail']);
  });
});
