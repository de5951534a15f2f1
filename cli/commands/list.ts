import { parseArgs } from 'node:util';
import { integerFlag, parsing, positionals } from '../args.js';
import { print, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { parseTextArg } from '../key-text.js';
import { leaseJson, type LeaseRow, type StoredLease } from '../lease-row.js';
import { LeaseStore } from '../lease-store.js';
import { LeaseTable } from '../lease-table.js';
import { Output } from '../output.js';
import { PAGING_HELP, pageSize, pagingOptions } from '../paging.js';
import { EXIT_OK, UsageError } from '../usage-error.js';

export const listCommand: Command = {
  name: 'list',
  summary: 'list the leases under a prefix: key, owner, metadata, fencing token, remaining TTL',
  help: `Usage: etcd-lease list [--json | --ndjson] [--owner OWNER] [--limit N] [--count] [connection flags]

Lists the leases under the prefix, in key order, printing each page as it is read: memory stays
flat however many there are. Keys, owners and metadata are printed as JSON string literals, so
NUL bytes (Mastra's thread keys are resourceId + "\\u0000" + threadId) and control characters
show as escapes; paste a printed key as it is into \`get\` or \`release\`.

  --json             a JSON array of { key, owner, metadata?, fencingToken, ttlRemainingMs }
                     (metadata only when the lease was taken with run metadata; ttlRemainingMs
                     is null for a key without an etcd lease)
  --ndjson           the same objects, one per line
  --owner OWNER      only the leases OWNER holds (JSON-quoted OWNER is decoded, as for release)
  --limit N          stop after N leases
  --count            print only how many leases there are (with --owner/--limit: how many
                     would be listed); one request when there is no --owner
${PAGING_HELP}

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('list', () =>
      parseArgs({
        args: argv,
        options: {
          ...connectionOptions,
          ...pagingOptions,
          json: { type: 'boolean' },
          ndjson: { type: 'boolean' },
          owner: { type: 'string' },
          limit: { type: 'string' },
          count: { type: 'boolean' },
        },
        allowPositionals: true,
        strict: true,
      }),
    );
    positionals('list', given, []);
    if (values.json && values.ndjson) throw new UsageError('give at most one of --json and --ndjson', 'list');
    const owner = values.owner === undefined ? undefined : parseTextArg('--owner', values.owner);
    const limit = integerFlag('list', 'limit', values.limit, Number.MAX_SAFE_INTEGER, 1, Number.MAX_SAFE_INTEGER);
    const maxKeys = pageSize('list', values['page-size']);
    const store = new LeaseStore(resolveConnection(values));
    try {
      if (values.count) {
        print(String(await countLeases(store, owner, limit, maxKeys)));
        return EXIT_OK;
      }
      const format = values.json ? new JsonArray() : values.ndjson ? new JsonLines() : new TextTable();
      const output = new Output();
      let printed = 0;
      for await (const page of store.pages({ maxKeys, ...(owner === undefined ? {} : { where: (l: StoredLease) => l.owner === owner }) })) {
        const rows = page.leases.slice(0, limit - printed);
        printed += rows.length;
        await output.write(format.page(rows));
        // Stop reading once enough is printed, or nobody reads the output any more (`| head`).
        if (printed >= limit || output.closed) break;
      }
      await output.write(format.end(printed));
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};

/** Without --owner one count-only request answers; with it, the pages are read (without TTL lookups) and counted. */
async function countLeases(store: LeaseStore, owner: string | undefined, limit: number, maxKeys: number): Promise<number> {
  if (owner === undefined) return Math.min(limit, (await store.count()).count);
  let count = 0;
  for await (const page of store.pages({ maxKeys, ttl: false, where: (l) => l.owner === owner })) {
    count += page.leases.length;
    if (count >= limit) return limit;
  }
  return count;
}

/** How one output format prints pages and ends. */
interface ListFormat {
  page(rows: readonly LeaseRow[]): string;
  end(printed: number): string;
}

/** One JSON array, written a page at a time: valid JSON however the listing is cut into pages. */
class JsonArray implements ListFormat {
  private started = false;

  page(rows: readonly LeaseRow[]): string {
    if (rows.length === 0) return '';
    const body = rows.map((r) => `  ${JSON.stringify(leaseJson(r))}`).join(',\n');
    const head = this.started ? ',\n' : '[\n';
    this.started = true;
    return head + body;
  }

  end(): string {
    return this.started ? '\n]\n' : '[]\n';
  }
}

class JsonLines implements ListFormat {
  page(rows: readonly LeaseRow[]): string {
    return rows.map((r) => `${JSON.stringify(leaseJson(r))}\n`).join('');
  }

  end(): string {
    return '';
  }
}

class TextTable implements ListFormat {
  private readonly table = new LeaseTable();

  page(rows: readonly LeaseRow[]): string {
    return this.table.lines(rows).map((line) => `${line}\n`).join('');
  }

  end(printed: number): string {
    return printed === 0 ? '(no leases)\n' : '';
  }
}
