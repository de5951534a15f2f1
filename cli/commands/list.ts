import { parseArgs } from 'node:util';
import { parsing, positionals } from '../args.js';
import { print, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { quote } from '../key-text.js';
import { LeaseStore, type LeaseRow } from '../lease-store.js';
import { EXIT_OK } from '../usage-error.js';

export const listCommand: Command = {
  name: 'list',
  summary: 'list the leases under a prefix: key, owner, fencing token, remaining TTL',
  help: `Usage: etcd-lease list [--prefix P] [--json] [connection flags]

Lists every lease under the prefix. Keys and owners are printed as JSON string literals, so
NUL bytes (Mastra's thread keys are resourceId + "\\u0000" + threadId) and control characters
show as escapes; paste a printed key as it is into \`get\` or \`release\`.

  --json             print a JSON array of { key, owner, fencingToken, ttlRemainingMs }
                     (ttlRemainingMs is null for a key without an etcd lease)

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('list', () =>
      parseArgs({ args: argv, options: { ...connectionOptions, json: { type: 'boolean' } }, allowPositionals: true, strict: true }),
    );
    positionals('list', given, []);
    const store = new LeaseStore(resolveConnection(values));
    try {
      const rows = await store.list();
      if (values.json) print(JSON.stringify(rows, null, 2));
      else printTable(rows);
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};

function printTable(rows: LeaseRow[]): void {
  if (rows.length === 0) {
    print('(no leases)');
    return;
  }
  const cells = rows.map((r) => [quote(r.key), r.fencingToken, formatTtl(r.ttlRemainingMs), quote(r.owner)]);
  const header = ['KEY', 'FENCING TOKEN', 'TTL', 'OWNER'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  // The owner column is last and never padded: owners can be long JSON tokens.
  const line = (c: string[]): string => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i] as number))).join('  ');
  print(line(header));
  for (const c of cells) print(line(c));
}

export function formatTtl(ms: number | null): string {
  return ms === null ? 'none' : `${ms / 1000}s`;
}
