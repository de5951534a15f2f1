import type { ClusterOptions } from './types.js';
import type { ClusterLayout, MemberAddresses, MemberLayout } from './layout.js';

/**
 * etcd's command line for one member. Members listen on their own ports but advertise `addresses`:
 * with a fault network those are the proxies' URLs, so peers dial each other through the peer
 * proxies, which is what lets a blackhole cut a member off. All members must agree on
 * --initial-cluster because member IDs are derived from the advertised peer URLs.
 * On restart the same flags are used; etcd ignores the --initial-* ones once the data dir has
 * a member in it.
 */
export function etcdArgs(
  layout: ClusterLayout,
  member: MemberLayout,
  addresses: MemberAddresses,
  options: ClusterOptions,
): string[] {
  const initialCluster = layout.members.map((m) => `${m.name}=${addresses.peerUrl(m.index)}`).join(',');
  const clientScheme = options.tls === undefined ? 'http' : 'https';
  const args = [
    `--name=${member.name}`,
    `--data-dir=${member.dataDir}`,
    `--listen-client-urls=${clientScheme}://127.0.0.1:${member.clientPort}`,
    `--advertise-client-urls=${addresses.clientUrl(member.index)}`,
    `--listen-peer-urls=http://127.0.0.1:${member.peerPort}`,
    `--initial-advertise-peer-urls=${addresses.peerUrl(member.index)}`,
    `--initial-cluster=${initialCluster}`,
    '--initial-cluster-state=new',
    `--initial-cluster-token=${layout.token}`,
    // 3.4 defaults to the deprecated capnslog; zap's JSON lines are easier to grep in failures.
    '--logger=zap',
    '--log-outputs=stderr',
  ];
  if (options.tls !== undefined) {
    // Only the client side: peers stay plaintext, so the peer proxies can still tell senders apart.
    args.push(`--cert-file=${options.tls.cert}`, `--key-file=${options.tls.key}`);
    if (options.tls.clientCertAuth === true) args.push('--client-cert-auth', `--trusted-ca-file=${options.tls.ca}`);
  }
  if (options.heartbeatMs !== undefined) args.push(`--heartbeat-interval=${options.heartbeatMs}`);
  if (options.electionTimeoutMs !== undefined) args.push(`--election-timeout=${options.electionTimeoutMs}`);
  args.push(...(options.extraArgs ?? []));
  return args;
}
