import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { findExecutable, isExecutableFile } from '../../../launcher/find-executable.js';

export interface EtcdctlConnection {
  endpoints: string[];
  /** --cacert, --cert, --key */
  tls?: { ca: string; cert: string; key: string };
  /** --user name:password */
  user?: string;
}

/**
 * Runs `etcdctl` (v3 API) against a test cluster. The security tests set the cluster up with the very
 * commands the README gives for a least-privilege setup, so those commands are tested too.
 * `input` goes to stdin (passwords, for `user add --interactive=false`).
 */
export function etcdctl(connection: EtcdctlConnection, args: string[], input?: string): Promise<string> {
  const flags = [`--endpoints=${connection.endpoints.join(',')}`];
  if (connection.tls) flags.push(`--cacert=${connection.tls.ca}`, `--cert=${connection.tls.cert}`, `--key=${connection.tls.key}`);
  if (connection.user) flags.push(`--user=${connection.user}`);
  const command = etcdctlCommand(connection.tls ? [connection.tls.ca, connection.tls.cert, connection.tls.key] : []);
  return new Promise((resolve, reject) => {
    const child = execFile(
      command.file,
      [...command.args, ...flags, ...args],
      { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 15_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`etcdctl ${args.join(' ')} failed: ${stderr || error.message}`, { cause: error }));
        else resolve(stdout);
      },
    );
    child.stdin?.end(input ?? '');
  });
}

/**
 * Where etcdctl comes from: ETCDCTL_BIN; the one beside the run's etcd binary (same version); etcdctl on
 * PATH; else, when members run in containers, the etcd image's own etcdctl (the official image has one, and
 * so does launcher/build-etcd-image.sh's), on the host network like the members, with `files` (TLS material)
 * mounted read-only at the same paths — a machine with only Docker has no etcdctl of its own.
 */
function etcdctlCommand(files: string[]): { file: string; args: string[] } {
  const beside = process.env.ETCD_BIN ? join(dirname(process.env.ETCD_BIN), 'etcdctl') : undefined;
  const local = process.env.ETCDCTL_BIN || (beside !== undefined && isExecutableFile(beside) ? beside : findExecutable('etcdctl'));
  if (local !== undefined) return { file: local, args: [] };
  const image = process.env.ETCD_IMAGE;
  if (process.env.ETCD_DRIVER !== 'container' || !image) {
    throw new Error('etcdctl not found: install it (Debian: etcd-client; macOS: brew install etcd) or set ETCDCTL_BIN');
  }
  const mounts = files.flatMap((file) => ['--volume', `${file}:${file}:ro`]);
  return {
    file: 'docker',
    args: ['run', '--rm', '--interactive', '--network', 'host', '--env', 'ETCDCTL_API=3', ...mounts, '--entrypoint', '/usr/local/bin/etcdctl', image],
  };
}

/**
 * The README's least-privilege setup, step by step: a root user (required before `auth enable`), a role
 * with readwrite on the lease prefix only, and the application user holding just that role.
 * `appPassword` undefined creates the user without a password (authenticated by its certificate's CN).
 */
export async function leastPrivilegeSetup(
  connection: EtcdctlConnection,
  setup: { rootPassword?: string; role: string; prefix: string; users: Array<{ name: string; password?: string }> },
): Promise<void> {
  await addUser(connection, 'root', setup.rootPassword);
  await etcdctl(connection, ['user', 'grant-role', 'root', 'root']);
  await etcdctl(connection, ['role', 'add', setup.role]);
  await etcdctl(connection, ['role', 'grant-permission', setup.role, 'readwrite', setup.prefix, '--prefix=true']);
  for (const user of setup.users) {
    await addUser(connection, user.name, user.password);
    await etcdctl(connection, ['user', 'grant-role', user.name, setup.role]);
  }
  await etcdctl(connection, ['auth', 'enable']);
}

function addUser(connection: EtcdctlConnection, name: string, password: string | undefined): Promise<string> {
  return password === undefined
    ? etcdctl(connection, ['user', 'add', name, '--no-password'])
    : etcdctl(connection, ['user', 'add', name, '--interactive=false'], `${password}\n`);
}
