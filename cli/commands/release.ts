import { EtcdLeaseProvider } from '../../src/provider.js';
import { parseArgs } from 'node:util';
import { parsing, positionals } from '../args.js';
import { print, printError, type Command } from '../command.js';
import { CONNECTION_HELP, clientOptions, connectionOptions, resolveConnection, type ConnectionSettings } from '../connection.js';
import { parseTextArg, quote } from '../key-text.js';
import { LeaseStore } from '../lease-store.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../usage-error.js';

export const releaseCommand: Command = {
  name: 'release',
  summary: 'release a lease as its owner (--owner O) or whoever holds it (--force)',
  help: `Usage: etcd-lease release KEY --owner OWNER [connection flags]
       etcd-lease release KEY --force [connection flags]

--owner OWNER   release exactly as the provider's releaseLease does: the owner check and the
                delete are one etcd transaction, so a lease that has meanwhile passed to
                someone else is never touched.
                exit 0: released, or the key was already free
                exit 1: the key is held by another owner (it is left alone)
--force         delete the key whoever holds it (for a stuck holder). The holder is NOT told:
                it keeps believing it owns the key until its next renew fails.
                exit 0: deleted, or the key was already free

KEY and OWNER are taken literally unless given as JSON string literals ("a\\u0000b", as
\`list\` prints them), which are decoded.

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('release', () =>
      parseArgs({
        args: argv,
        options: { ...connectionOptions, owner: { type: 'string' }, force: { type: 'boolean' } },
        allowPositionals: true,
        strict: true,
      }),
    );
    const [keyArg] = positionals('release', given, ['key']);
    const key = parseTextArg('KEY', keyArg as string);
    if ((values.owner === undefined) === (values.force !== true)) {
      throw new UsageError('give exactly one of --owner OWNER and --force', 'release');
    }
    const settings = resolveConnection(values);
    if (values.force) return forceRelease(settings, key);
    return releaseAsOwner(settings, key, parseTextArg('--owner', values.owner as string));
  },
};

async function releaseAsOwner(settings: ConnectionSettings, key: string, owner: string): Promise<number> {
  const provider = new EtcdLeaseProvider({
    hosts: settings.hosts,
    prefix: settings.prefix,
    deadlineMs: settings.timeoutMs,
    ...clientOptions(settings),
  });
  try {
    const before = await provider.getLeaseOwner(key);
    await provider.releaseLease(key, owner);
    // Reported from a read after the release: the release itself answers nothing, by contract.
    const holder = await provider.getLeaseOwner(key);
    if (holder === undefined) {
      print(before === owner ? `${quote(key)}: released by ${quote(owner)}` : `${quote(key)}: already free`);
      return EXIT_OK;
    }
    if (holder === owner) {
      // Only possible if the owner re-acquired it between our release and our read.
      printError(`${quote(key)}: still held by ${quote(owner)} (re-acquired after the release)`);
      return EXIT_FAILED;
    }
    printError(`${quote(key)}: not released: held by ${quote(holder)}, not ${quote(owner)}`);
    return EXIT_FAILED;
  } finally {
    await provider.close();
  }
}

async function forceRelease(settings: ConnectionSettings, key: string): Promise<number> {
  const store = new LeaseStore(settings);
  try {
    const previous = await store.forceDelete(key);
    print(previous === undefined ? `${quote(key)}: already free` : `${quote(key)}: deleted (was held by ${quote(previous)})`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}
