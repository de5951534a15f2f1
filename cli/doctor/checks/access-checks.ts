import type { AccessProbe, ClusterFacts } from '../facts.js';
import type { Finding } from '../finding.js';

/** A certificate that expires within this long is worth renewing now. */
const EXPIRY_WARNING_MS = 30 * 24 * 3600 * 1000;

export function accessChecks(facts: ClusterFacts, now: Date = new Date()): Finding[] {
  const findings: Finding[] = [];
  const { probes, username, readsAuthRecords } = facts.access;
  if (probes.length === 0) return findings;
  const at = (where: string): AccessProbe | undefined => probes.find((p) => p.where === where);
  const outside = probes.filter((p) => p.where === 'beside the prefixes' || p.where === 'top level');
  const remote = facts.tls.endpoints.some((e) => !e.loopback);
  const grant = `etcdctl role grant-permission --prefix=true <role> readwrite ${facts.prefix} and the same for ${facts.eventPrefix}`;

  if (username === undefined) {
    if (outside.every((p) => p.read === 'allowed' && p.write === 'allowed')) {
      findings.push({
        check: 'auth',
        level: remote ? 'warn' : 'note',
        summary: 'authentication is off: any client that reaches etcd may read and write every key',
        why: 'Anything on the network can take, release or overwrite a lease, or read and forge events.',
        fix: `Create a user whose role reaches only ${facts.prefix} and ${facts.eventPrefix} (docs/security.md), then etcdctl auth enable; pass ETCD_USERNAME / ETCD_PASSWORD.`,
      });
    }
  } else if (readsAuthRecords === true) {
    findings.push({
      check: 'auth',
      level: 'warn',
      summary: `user "${username}" may read etcd's user records: it has the root role`,
      why: 'A leaked password of a root user gives away the whole cluster, Kubernetes’ own keys included if it shares the etcd.',
      fix: `Give the application a user of its own with one role: ${grant}.`,
    });
  } else {
    findings.push({ check: 'auth', level: 'ok', summary: `connected as "${username}", not a root user` });
  }

  const needed = [at('lease prefix'), at('event prefix')].filter((p): p is AccessProbe => p !== undefined);
  for (const probe of needed) {
    const missing = [probe.read !== 'allowed' ? 'read' : undefined, probe.write !== 'allowed' ? 'write' : undefined].filter(Boolean);
    if (missing.length === 0) continue;
    const failed = probe.read === 'failed' || probe.write === 'failed';
    findings.push({
      check: 'permissions',
      level: probe.where === 'lease prefix' ? 'fail' : 'warn',
      summary: `${failed ? 'could not check' : 'may not'} ${missing.join(' or ')} under the ${probe.where} ${JSON.stringify(probe.key.slice(0, probe.key.lastIndexOf('.')))}`,
      why: probe.where === 'lease prefix' ? 'Every lease call reads and writes there: none can succeed.' : 'EtcdPubSub keeps events, claims and group members there: it cannot run with this role (leases alone are unaffected).',
      fix: grant,
    });
  }
  if (username !== undefined) {
    const wide = outside.filter((p) => p.read === 'allowed' || p.write === 'allowed');
    if (wide.length > 0) {
      findings.push({
        check: 'permissions',
        level: 'warn',
        summary: `the role reaches beyond the prefixes: ${wide.map((p) => `${[p.read === 'allowed' ? 'read' : '', p.write === 'allowed' ? 'write' : ''].filter(Boolean).join('+')} at ${JSON.stringify(p.key)}`).join(', ')}`,
        why: 'Least privilege: the application needs its two prefixes only; a wider role lets a bug or a leaked password touch other tenants’ keys.',
        fix: `etcdctl role get <role> to see its ranges; revoke the wide one (etcdctl role revoke-permission) and ${grant}.`,
      });
    }
  }
  if (findings.every((f) => f.check !== 'permissions') && needed.length > 0) {
    findings.push({ check: 'permissions', level: 'ok', summary: `reads and writes under ${facts.prefix} and ${facts.eventPrefix}${username === undefined ? '' : ', nothing beside them'}` });
  }
  return findings;
}

export function tlsChecks(facts: ClusterFacts, now: Date = new Date()): Finding[] {
  const findings: Finding[] = [];
  const plain = facts.tls.endpoints.filter((e) => !e.tls);
  const plainRemote = plain.filter((e) => !e.loopback);
  if (plainRemote.length > 0) {
    findings.push({
      check: 'tls',
      level: 'warn',
      summary: `plain text to ${plainRemote.map((e) => e.endpoint).join(', ')}`,
      why: 'Passwords, tokens, lease owners and event payloads cross the network readable and forgeable.',
      fix: 'Serve clients over TLS (--cert-file, --key-file, --client-cert-auth) and use https:// endpoints with ETCD_CA_FILE.',
    });
  } else if (plain.length > 0) {
    findings.push({ check: 'tls', level: 'note', summary: 'plain text, to this machine only (loopback)' });
  } else {
    findings.push({ check: 'tls', level: 'ok', summary: 'every endpoint is TLS' });
  }
  for (const certificate of facts.tls.certificates) {
    const left = Date.parse(certificate.notAfter) - now.getTime();
    if (left > EXPIRY_WARNING_MS) continue;
    findings.push({
      check: 'tls',
      level: left <= 0 ? 'fail' : 'warn',
      summary: `the ${certificate.role} certificate ${certificate.file} ${left <= 0 ? 'expired' : 'expires'} ${certificate.notAfter.slice(0, 10)}`,
      why: 'When it expires every connection is refused: no lease can be renewed.',
      fix: `Renew ${certificate.file} and restart or reload the clients.`,
    });
  }
  return findings;
}

export function keyChecks(facts: ClusterFacts): Finding[] {
  const usage = facts.usage;
  if (usage.error !== undefined) return [{ check: 'keys', level: 'note', summary: `could not count the keys: ${usage.error}` }];
  if (usage.leaseKeys === undefined) return [];
  const findings: Finding[] = [
    {
      check: 'keys',
      level: 'note',
      summary: `${usage.leaseKeys} lease key(s) under ${facts.prefix}, ${usage.eventKeys ?? '?'} key(s) under ${facts.eventPrefix}${usage.etcdLeases === undefined ? '' : `, ${usage.etcdLeases} live etcd lease(s) on the cluster`}`,
    },
  ];
  if ((usage.leaseKeysWithoutLease ?? 0) > 0) {
    findings.push({
      check: 'keys',
      level: 'warn',
      summary: `${usage.leaseKeysWithoutLease} key(s) under ${facts.prefix} have no etcd lease: they never expire`,
      why: 'The provider writes every lease key with an etcd lease; a key without one was written by hand or by another tool, and its "owner" holds it forever.',
      fix: 'etcd-lease list to see them; etcd-lease release --force <key> for each that is stale.',
    });
  }
  return findings;
}
