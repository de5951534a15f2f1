import { parseArgs } from 'node:util';
import { parsing, positionals } from '../args.js';
import { print, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { parseTextArg, quote } from '../key-text.js';
import { LeaseStore } from '../lease-store.js';
import { EXIT_OK } from '../usage-error.js';
import { formatTtl } from './list.js';

export const getCommand: Command = {
  name: 'get',
  summary: 'show one lease: owner, fencing token, remaining TTL',
  help: `Usage: etcd-lease get KEY [--json] [connection flags]

Shows who holds KEY. KEY is taken literally, unless it is a JSON string literal ("a\\u0000b",
as \`list\` prints keys), which is decoded. A free key is not an error: it prints "free"
(with --json: null) and exits 0.

  --json             print { key, owner, fencingToken, ttlRemainingMs } or null

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('get', () =>
      parseArgs({ args: argv, options: { ...connectionOptions, json: { type: 'boolean' } }, allowPositionals: true, strict: true }),
    );
    const [keyArg] = positionals('get', given, ['key']);
    const key = parseTextArg('KEY', keyArg as string);
    const store = new LeaseStore(resolveConnection(values));
    try {
      const row = await store.get(key);
      if (values.json) print(JSON.stringify(row ?? null, null, 2));
      else if (row === undefined) print(`${quote(key)}: free`);
      else {
        print(`key:            ${quote(row.key)}`);
        print(`owner:          ${quote(row.owner)}`);
        print(`fencing token:  ${row.fencingToken}`);
        print(`ttl remaining:  ${formatTtl(row.ttlRemainingMs)}`);
      }
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};
