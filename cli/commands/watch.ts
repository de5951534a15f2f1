import type { IKeyValue, Watcher } from 'etcd3';
import { EtcdUnavailableError } from '../../src/errors/unavailable.js';
import { parseArgs } from 'node:util';
import { parsing, positionals } from '../args.js';
import { print, printError, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { quote } from '../key-text.js';
import { LeaseStore } from '../lease-store.js';
import { EXIT_OK } from '../usage-error.js';

/** One change as `watch --json` prints it (one JSON object per line). */
export interface WatchEvent {
  /**
   * - `acquired`: the key appeared;
   * - `renewed`: rewritten with the same owner (renew, or an owner re-acquiring);
   * - `transferred`: rewritten with another owner (only transferLease does that);
   * - `freed`: deleted — released, expired, or force-released (etcd does not say which).
   */
  event: 'acquired' | 'renewed' | 'transferred' | 'freed';
  key: string;
  /** Holder after the change; null once freed. */
  owner: string | null;
  previousOwner: string | null;
  /** The new holder's fencing token; null once freed. */
  fencingToken: string | null;
  /** etcd revision of the change. */
  revision: string;
}

export const watchCommand: Command = {
  name: 'watch',
  summary: 'print lease changes under a prefix as they happen, until Ctrl-C',
  help: `Usage: etcd-lease watch [--prefix P] [--json] [connection flags]

Prints every change to a lease under the prefix: acquired, renewed, transferred, freed
(released, expired or force-released: etcd does not tell them apart). Runs until Ctrl-C
(exit 0). Reconnects by itself when members go away; says so on stderr.

  --json             one JSON object per line:
                     { event, key, owner, previousOwner, fencingToken, revision }

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('watch', () =>
      parseArgs({ args: argv, options: { ...connectionOptions, json: { type: 'boolean' } }, allowPositionals: true, strict: true }),
    );
    positionals('watch', given, []);
    const settings = resolveConnection(values);
    const store = new LeaseStore(settings);
    let watcher: Watcher | undefined;
    try {
      const show = (event: WatchEvent): void => print(values.json ? JSON.stringify(event) : formatEvent(event));
      watcher = await withTimeout(
        store.client.watch().prefix(store.prefixBuffer).withPreviousKV().create(),
        settings.timeoutMs,
        () => new EtcdUnavailableError('watch', 1, settings.timeoutMs, new Error(`no watch stream to ${settings.hosts.join(',')}`)),
      );
      watcher
        .on('put', (kv, previous) => show(putEvent(store.keyOf(kv), kv, previous)))
        .on('delete', (kv, previous) => show(deleteEvent(store.keyOf(kv), kv, previous)))
        .on('disconnected', () => printError('watch: disconnected from etcd; reconnecting'))
        .on('connected', () => printError('watch: connected'));
      printError(`watching ${quote(settings.prefix)} on ${settings.hosts.join(',')} (Ctrl-C to stop)`);
      await untilInterrupted();
      return EXIT_OK;
    } finally {
      await watcher?.cancel().catch(() => undefined);
      store.close();
    }
  },
};

// etcd3 types `previous` as optional but passes null when the server sent no previous value.
export function putEvent(key: string, kv: IKeyValue, previous: IKeyValue | null | undefined): WatchEvent {
  const owner = kv.value.toString('utf8');
  const previousOwner = previous == null ? null : previous.value.toString('utf8');
  const event = previousOwner === null ? 'acquired' : previousOwner === owner ? 'renewed' : 'transferred';
  return { event, key, owner, previousOwner, fencingToken: kv.mod_revision, revision: kv.mod_revision };
}

export function deleteEvent(key: string, kv: IKeyValue, previous: IKeyValue | null | undefined): WatchEvent {
  const previousOwner = previous == null ? null : previous.value.toString('utf8');
  return { event: 'freed', key, owner: null, previousOwner, fencingToken: null, revision: kv.mod_revision };
}

export function formatEvent(e: WatchEvent): string {
  const head = `rev ${e.revision}  ${e.event.padEnd(11)} ${quote(e.key)}`;
  switch (e.event) {
    case 'acquired':
    case 'renewed':
      return `${head}  owner ${quote(e.owner as string)}  token ${e.fencingToken}`;
    case 'transferred':
      return `${head}  ${quote(e.previousOwner as string)} -> ${quote(e.owner as string)}  token ${e.fencingToken}`;
    case 'freed':
      return e.previousOwner === null ? head : `${head}  was ${quote(e.previousOwner)}`;
  }
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(error()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
