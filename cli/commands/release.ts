import { parseArgs } from 'node:util';
import { EtcdLeaseProvider } from '../../src/provider.js';
import type { LeaseRecord } from '../../src/results.js';
import { parsing, positionals } from '../args.js';
import { print, printError, type Command } from '../command.js';
import { CONNECTION_HELP, clientOptions, connectionOptions, resolveConnection, type ConnectionSettings } from '../connection.js';
import { noteEscapedKey } from '../escaped-key-note.js';
import { parseTextArg, quote } from '../key-text.js';
import { holderText } from '../lease-row.js';
import { LeaseStore } from '../lease-store.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../usage-error.js';

export const releaseCommand: Command = {
  name: 'release',
  summary: 'release a lease as its owner (--owner O [--metadata M]) or whoever holds it (--force)',
  help: `Usage: etcd-lease release KEY --owner OWNER [--metadata RUN] [connection flags]
       etcd-lease release KEY --force [--token TOKEN] [connection flags]

--owner OWNER   release exactly as the provider's releaseLease does: the owner check and the
                delete are one etcd transaction, so a lease that has meanwhile passed to
                someone else is never touched.
--metadata RUN  the run metadata the lease was taken with. It must match exactly, as in
                releaseLease: without --metadata only a lease taken without metadata is
                released; the same owner with other metadata is left alone.
                exit 0: released, or the key was already free
                exit 1: the key is held by another owner, or with other metadata (left alone)
--force         delete the key whoever holds it (for a stuck holder). It reads the key, shows
                the holder and its fencing token, and deletes exactly that version: if the
                key was written meanwhile (renewed, transferred, or freed and taken again),
                nothing is deleted. A retried or late delete can never remove a later tenure.
                The holder is NOT told: it keeps believing it owns the key until its next
                renew fails.
--token TOKEN   with --force: delete only the version with this fencing token (as \`list\` or
                \`get\` showed it), without reading first.
                exit 0: deleted, or the key is free
                exit 1: the key holds another version than the one shown or named (left alone)

KEY, OWNER and RUN are taken literally unless given as JSON string literals ("a\\u0000b", as
\`list\` prints them), which are decoded. When an unquoted KEY with such an escape is free, a
note on stderr says so, and whether the lease with the escape decoded is held (this command
left it alone).

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('release', () =>
      parseArgs({
        args: argv,
        options: { ...connectionOptions, owner: { type: 'string' }, metadata: { type: 'string' }, force: { type: 'boolean' }, token: { type: 'string' } },
        allowPositionals: true,
        strict: true,
      }),
    );
    const [keyArg] = positionals('release', given, ['key']);
    const key = parseTextArg('KEY', keyArg as string);
    if ((values.owner === undefined) === (values.force !== true)) {
      throw new UsageError('give exactly one of --owner OWNER and --force', 'release');
    }
    if (values.metadata !== undefined && values.force) throw new UsageError('--metadata goes with --owner, not --force', 'release');
    if (values.token !== undefined && !values.force) throw new UsageError('--token goes with --force', 'release');
    if (values.token !== undefined && !/^[1-9]\d*$/.test(values.token)) {
      throw new UsageError(`--token: must be a fencing token (a revision, a whole number above 0), got ${JSON.stringify(values.token)}`, 'release');
    }
    const settings = resolveConnection(values);
    if (values.force) return forceRelease(settings, key, keyArg as string, values.token);
    // Run metadata may be any string, '' included (a value, unlike no metadata at all).
    const metadata = values.metadata === undefined ? undefined : parseTextArg('--metadata', values.metadata, { allowEmpty: true });
    return releaseAsOwner(settings, key, keyArg as string, { owner: parseTextArg('--owner', values.owner as string), ...(metadata === undefined ? {} : { metadata }) });
  },
};

/** `keyArg`: KEY as typed, for the note on a backslash escape typed unquoted (escaped-key-note.ts). */
async function releaseAsOwner(settings: ConnectionSettings, key: string, keyArg: string, holder: LeaseRecord): Promise<number> {
  const provider = new EtcdLeaseProvider({
    hosts: settings.hosts,
    prefix: settings.prefix,
    deadlineMs: settings.timeoutMs,
    ...clientOptions(settings),
  });
  const same = (record: LeaseRecord | undefined): boolean => record !== undefined && record.owner === holder.owner && record.metadata === holder.metadata;
  try {
    const before = await provider.getLeaseRecord(key);
    if (holder.metadata === undefined) await provider.releaseLease(key, holder.owner);
    else await provider.releaseLease(key, holder.owner, holder.metadata);
    // Reported from a read after the release: the release itself answers nothing, by contract.
    const after = await provider.getLeaseRecord(key);
    if (after === undefined) {
      if (same(before)) print(`${quote(key)}: released by ${holderText(holder)}`);
      else {
        if (before === undefined) await noteEscapedKey('release', keyArg, async (meant) => (await provider.getLeaseRecord(meant)) !== undefined);
        print(`${quote(key)}: already free`);
      }
      return EXIT_OK;
    }
    if (same(after)) {
      // Only possible if the owner re-acquired it between our release and our read.
      printError(`${quote(key)}: still held by ${holderText(holder)} (re-acquired after the release)`);
      return EXIT_FAILED;
    }
    printError(`${quote(key)}: not released: ${notYours(after, holder)}`);
    return EXIT_FAILED;
  } finally {
    await provider.close();
  }
}

/** Why a release as `asked` left the lease of `held` alone: another owner, or the same owner with other metadata. */
export function notYours(held: LeaseRecord, asked: LeaseRecord): string {
  if (held.owner !== asked.owner) return `held by ${holderText(held)}, not ${quote(asked.owner)}`;
  if (held.metadata === undefined) {
    return `${quote(held.owner)} holds it without run metadata, and --metadata ${quote(asked.metadata as string)} was given; run it again without --metadata`;
  }
  const given = asked.metadata === undefined ? 'no --metadata was given' : `--metadata ${quote(asked.metadata)} was given`;
  return `${quote(held.owner)} holds it with run metadata ${quote(held.metadata)}, which must match exactly, and ${given}; add --metadata ${quote(held.metadata)}`;
}

async function forceRelease(settings: ConnectionSettings, key: string, keyArg: string, token: string | undefined): Promise<number> {
  const store = new LeaseStore(settings);
  const noteEscape = () => noteEscapedKey('release', keyArg, async (meant) => (await store.holder(meant)) !== undefined);
  try {
    if (token === undefined) {
      const shown = await store.holder(key);
      if (shown === undefined) {
        await noteEscape();
        print(`${quote(key)}: already free`);
        return EXIT_OK;
      }
      print(`${quote(key)}: held by ${holderText(shown)}, fencing token ${shown.fencingToken}`);
      token = shown.fencingToken;
    }
    const outcome = await store.deleteTenure(key, token);
    switch (outcome.kind) {
      case 'deleted':
        print(`${quote(key)}: deleted (fencing token ${token})`);
        return EXIT_OK;
      case 'absent':
        await noteEscape();
        print(`${quote(key)}: free (the version with fencing token ${token} is gone)`);
        return EXIT_OK;
      case 'changed': {
        const { current } = outcome;
        // A key created after the token was freed and taken again: a later tenure. Otherwise the same tenure wrote
        // again (a renewal: the holder is alive) or passed it on (a transfer).
        const why = BigInt(current.createRevision) > BigInt(token) ? 'was freed and taken again' : 'was written again (renewed or transferred)';
        printError(
          `${quote(key)}: not deleted: it ${why} after fencing token ${token}; now held by ${holderText(current)}, fencing token ${current.fencingToken}. ` +
            'Run the command again to delete the current holder.',
        );
        return EXIT_FAILED;
      }
    }
  } finally {
    store.close();
  }
}
