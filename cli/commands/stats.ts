import { parseArgs } from 'node:util';
import { integerFlag, parsing, positionals } from '../args.js';
import { print, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { quote } from '../key-text.js';
import { LeaseStore } from '../lease-store.js';
import { PAGING_HELP, pageSize, pagingOptions } from '../paging.js';
import { LeaseStats, type LeaseStatsSummary } from '../stats/lease-stats.js';
import { bucketLabel } from '../stats/ttl-buckets.js';
import { EXIT_OK } from '../usage-error.js';

export const statsCommand: Command = {
  name: 'stats',
  summary: 'summarise the leases under a prefix: count, top owners, remaining-TTL distribution, etcd leases',
  help: `Usage: etcd-lease stats [--json] [--top N] [connection flags]

Reads every lease under the prefix (page by page, one snapshot) and prints what an operator asks
first: how many leases there are (and how many carry run metadata), how many owners hold them
and which hold the most, how long they have left (remaining-TTL buckets, min / median / max),
and how many etcd leases they are attached to (EtcdLeaseProvider pools them: far fewer than keys).

  --json             print { revision, leases, withMetadata, owners, topOwners: [{ owner, leases }],
                     etcdLeases, ttl: { noLease, minMs, medianMs, maxMs,
                     buckets: [{ fromMs, toMs, leases }] } }
  --top N            how many owners to name (default 10)
${PAGING_HELP}

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('stats', () =>
      parseArgs({
        args: argv,
        options: { ...connectionOptions, ...pagingOptions, json: { type: 'boolean' }, top: { type: 'string' } },
        allowPositionals: true,
        strict: true,
      }),
    );
    positionals('stats', given, []);
    const top = integerFlag('stats', 'top', values.top, 10, 0, 1000);
    const maxKeys = pageSize('stats', values['page-size']);
    const settings = resolveConnection(values);
    const store = new LeaseStore(settings);
    try {
      const stats = new LeaseStats();
      let revision: string | undefined;
      for await (const page of store.pages({ maxKeys })) {
        revision = page.revision;
        for (const lease of page.leases) stats.add(lease);
      }
      // An empty prefix has no page to take a revision from.
      revision ??= (await store.count()).revision;
      const summary = stats.summary(top, revision);
      print(values.json ? JSON.stringify(summary, null, 2) : formatStats(settings.prefix, summary));
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};

function formatStats(prefix: string, s: LeaseStatsSummary): string {
  const seconds = (ms: number | null): string => (ms === null ? '-' : `${ms / 1000}s`);
  const width = String(Math.max(s.leases, 1)).length;
  const lines = [
    `prefix ${quote(prefix)} at revision ${s.revision}`,
    `leases:         ${s.leases} (${s.withMetadata} with run metadata)`,
    `owners:         ${s.owners}`,
    `etcd leases:    ${s.etcdLeases} in use${s.ttl.noLease > 0 ? ` (${s.ttl.noLease} key(s) on none: they never expire)` : ''}`,
    `remaining TTL:  min ${seconds(s.ttl.minMs)}  median ${seconds(s.ttl.medianMs)}  max ${seconds(s.ttl.maxMs)}`,
    ...s.ttl.buckets.map((b) => `  ${bucketLabel(b).padEnd(12)}${String(b.leases).padStart(width)}`),
  ];
  if (s.topOwners.length > 0) {
    lines.push(`top owners:`);
    for (const o of s.topOwners) lines.push(`  ${String(o.leases).padStart(width)}  ${quote(o.owner)}`);
  }
  return lines.join('\n');
}
