import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Who meets the message: someone in a clone of the repository (its compose file, its image script, its
 * devDependencies), or a user of the installed package, who has `etcd-lease demo` and nothing else of it.
 */
export type RunningFrom = 'clone' | 'package';

/**
 * The package root is the parent of this file's folder both as source (launcher/) and bundled into the CLI
 * (dist/cli.js); only a clone has docker-compose.yml there (the package does not ship it).
 */
export function runningFrom(root: string = fileURLToPath(new URL('..', import.meta.url))): RunningFrom {
  return existsSync(`${root}/docker-compose.yml`) && existsSync(`${root}/launcher/build-etcd-image.sh`) ? 'clone' : 'package';
}

/** The pinned etcd of the tests, compose and the Kubernetes example, for the one-member `docker run` below. */
const ETCD_IMAGE = 'gcr.io/etcd-development/etcd:v3.5.30';

/**
 * Neither an etcd binary nor a Docker engine: the one message a user gets instead of a failure per test file
 * or a stack trace from the demo. It says what was looked for and the ways to get etcd that this user has,
 * so the next command is obvious.
 */
export function noEtcdMessage(tried: readonly string[], from: RunningFrom): string {
  const binary = [
    '  1. an etcd binary: `sudo apt-get install etcd-server etcd-client` (Debian/Ubuntu), `brew install etcd` (macOS),',
    '     or ETCD_BIN=/path/to/etcd;',
  ];
  if (from === 'package') {
    return [
      `No etcd to start a local cluster from (${tried.join('; ')}). Either of these works:`,
      ...binary,
      '  2. an etcd that runs already: `ETCD_ENDPOINTS=host:2379,… etcd-lease demo` runs against it under a prefix of',
      '     its own and kills nothing. With Docker, one member on 127.0.0.1:2379:',
      `       docker run -d --rm --name etcd -p 127.0.0.1:2379:2379 ${ETCD_IMAGE} /usr/local/bin/etcd \\`,
      '         --listen-client-urls=http://0.0.0.0:2379 --advertise-client-urls=http://127.0.0.1:2379',
    ].join('\n');
  }
  return [
    `No etcd to start a cluster from (${tried.join('; ')}). Any one of these works:`,
    ...binary,
    '  2. Docker: start a Docker engine; members then run in containers of the official etcd image',
    '     (ETCD_IMAGE overrides it; `bash launcher/build-etcd-image.sh` builds one offline from a binary);',
    '  3. `docker compose up -d` in this repository: a 3-member cluster for your app and for `npm start`',
    '     with ETCD_ENDPOINTS=127.0.0.1:2379,127.0.0.1:22379,127.0.0.1:32379 (the test suites start members',
    '     of their own, so they need 1 or 2).',
  ].join('\n');
}

/** Thrown by the launcher's choice; its message is `noEtcdMessage`, to print as it is (no class name before it). */
export class NoEtcdError extends Error {
  constructor(
    readonly tried: readonly string[],
    readonly from: RunningFrom = runningFrom(),
  ) {
    super(noEtcdMessage(tried, from));
    this.name = 'NoEtcdError';
  }
}
