/**
 * Neither an etcd binary nor a Docker engine: the one message a user gets instead of a failure per test
 * file. It says what was looked for and the three ways to get etcd, so the next command is obvious.
 */
export class NoEtcdError extends Error {
  constructor(readonly tried: readonly string[]) {
    super(
      [
        `No etcd to start a cluster from (${tried.join('; ')}). Any one of these works:`,
        '  1. an etcd binary: `sudo apt-get install etcd-server etcd-client` (Debian/Ubuntu), `brew install etcd` (macOS),',
        '     or ETCD_BIN=/path/to/etcd;',
        '  2. Docker: start a Docker engine; members then run in containers of the official etcd image',
        '     (ETCD_IMAGE overrides it; `bash cluster/build-etcd-image.sh` builds one offline from a binary);',
        '  3. `docker compose up -d` in this repository: a 3-member cluster for your app and for `npm start`',
        '     with ETCD_ENDPOINTS=127.0.0.1:2379,127.0.0.1:22379,127.0.0.1:32379 (the test suites start members',
        '     of their own, so they need 1 or 2).',
      ].join('\n'),
    );
    this.name = 'NoEtcdError';
  }
}
