import { parseArgs } from 'node:util';
import { parsing, positionals } from '../args.js';
import { print, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { noteEscapedKey } from '../escaped-key-note.js';
import { parseTextArg, quote } from '../key-text.js';
import { formatTtl, leaseJson } from '../lease-row.js';
import { LeaseStore } from '../lease-store.js';
import { EXIT_OK } from '../usage-error.js';

export const getCommand: Command = {
  name: 'get',
  summary: 'show one lease: owner, metadata, fencing token, remaining TTL',
  help: `Usage: etcd-lease get KEY [--json] [connection flags]

Shows who holds KEY, and the run metadata it was taken with, if any. KEY is taken literally,
unless it is a JSON string literal ("a\\u0000b", as \`list\` prints keys), which is decoded.
A free key is not an error: it prints "free" (with --json: null) and exits 0. A shell cannot
pass a NUL byte, so Mastra's thread keys (resourceId, NUL, threadId) must be given JSON-quoted:
  etcd-lease get '"user-1\\u0000thread-4"'
When an unquoted KEY with such an escape is free, a note on stderr says so, and whether the
lease with the escape decoded exists.

  --json             print { key, owner, metadata?, fencingToken, ttlRemainingMs } or null
                     (metadata only when the lease has it)

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('get', () =>
      parseArgs({ args: argv, options: { ...connectionOptions, json: { type: 'boolean' } }, allowPositionals: true, strict: true }),
    );
    const [keyArg] = positionals('get', given, ['key']);
    const key = parseTextArg('KEY', keyArg as string);
    const store = new LeaseStore(resolveConnection(values));
    try {
      const lease = await store.get(key);
      if (lease === undefined) await noteEscapedKey('get', keyArg as string, async (meant) => (await store.holder(meant)) !== undefined);
      if (values.json) print(JSON.stringify(lease === undefined ? null : leaseJson(lease), null, 2));
      else if (lease === undefined) print(`${quote(key)}: free`);
      else {
        print(`key:            ${quote(lease.key)}`);
        print(`owner:          ${quote(lease.owner)}`);
        if (lease.metadata !== undefined) print(`metadata:       ${quote(lease.metadata)}`);
        print(`fencing token:  ${lease.fencingToken}`);
        print(`ttl remaining:  ${formatTtl(lease.ttlRemainingMs)}`);
      }
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};
