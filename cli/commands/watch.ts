import type { IEvent, IKeyValue } from 'etcd3';
import { parseArgs } from 'node:util';
import { EtcdUnavailableError } from '../../src/errors/unavailable.js';
import { decodeKey } from '../../src/keys/key-codec.js';
import { decodeLeaseValue, type LeaseHolder } from '../../src/keys/lease-value.js';
import { EVENT_DEFAULTS } from '../../src/pubsub/resolve-options.js';
import { WatchStream } from '../../src/pubsub/watch/watch-stream.js';
import { parsing, positionals } from '../args.js';
import { print, printError, type Command } from '../command.js';
import { describeError } from '../describe-error.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { quote } from '../key-text.js';
import { holderText, type StoredLease } from '../lease-row.js';
import { LeaseStore } from '../lease-store.js';
import { Output } from '../output.js';
import { PAGING_HELP, pageSize, pagingOptions } from '../paging.js';
import { duration, ReconnectNotices, streamCause } from '../reconnect-notices.js';
import { EXIT_OK } from '../usage-error.js';

/** How often the stream is asked whether it keeps up with the cluster: as often as EtcdPubSub asks by default. */
const WATCH_CHECK_MS = EVENT_DEFAULTS.watchCheckMs;

/** One line of `watch --json`; the field set is part of the CLI's contract. */
export interface WatchEvent {
  /**
   * - `held`: with --initial, a lease as it stood when the watch began (revision: that snapshot's);
   * - `acquired`: the key appeared;
   * - `renewed`: rewritten with the same owner and metadata (renew, or an owner re-acquiring);
   * - `transferred`: rewritten with another owner or other metadata (only transferLease does that);
   * - `freed`: deleted — released, expired, or force-released (etcd does not say which).
   */
  event: 'held' | 'acquired' | 'renewed' | 'transferred' | 'freed';
  key: string;
  /** Holder after the change; null once freed. */
  owner: string | null;
  /** Its run metadata; present only when the lease has some. */
  metadata?: string;
  previousOwner: string | null;
  /** The previous holder's run metadata; present only when it had some. */
  previousMetadata?: string;
  /** The new holder's fencing token; null once freed. */
  fencingToken: string | null;
  /** etcd revision of the change. */
  revision: string;
}

export const watchCommand: Command = {
  name: 'watch',
  summary: 'print lease changes under a prefix as they happen, until Ctrl-C',
  help: `Usage: etcd-lease watch [--prefix P] [--json] [--initial] [connection flags]

Prints every change to a lease under the prefix: acquired, renewed, transferred, freed
(released, expired or force-released: etcd does not tell them apart). Runs until Ctrl-C
(exit 0). Reconnects by itself when members go away, or when the member it streams from
stops answering (found within 2 s) or falls behind the cluster (checked every 5 s); says so
on stderr, with the cause: once when the stream breaks, again after 10 s, 30 s, 1, 2 and
5 min and every 5 min while it stays down (naming each endpoint's failure), and once it is
back. It starts right after a snapshot of the prefix (its size is said on stderr): no change
is missed or shown twice.

  --json             one JSON object per line:
                     { event, key, owner, metadata?, previousOwner, previousMetadata?,
                       fencingToken, revision } (metadata fields only when there are some)
  --initial          first print every lease the snapshot holds, as \`held\` events, read
                     page by page
${PAGING_HELP}

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('watch', () =>
      parseArgs({
        args: argv,
        options: { ...connectionOptions, ...pagingOptions, json: { type: 'boolean' }, initial: { type: 'boolean' } },
        allowPositionals: true,
        strict: true,
      }),
    );
    positionals('watch', given, []);
    const maxKeys = pageSize('watch', values['page-size']);
    const settings = resolveConnection(values);
    const store = new LeaseStore(settings);
    let stream: WatchStream | undefined;
    const stopped = new AbortController();
    try {
      const show = (event: WatchEvent): string => (values.json ? JSON.stringify(event) : formatEvent(event));
      const output = new Output();
      // The snapshot the watch continues from (--initial prints it): changes are asked for from the revision after.
      const snapshot = await store.count();
      if (values.initial) {
        for await (const page of store.pages({ maxKeys, ttl: false, revision: snapshot.revision })) {
          await output.write(page.leases.map((lease) => `${show(heldEvent(lease, page.revision))}\n`).join(''));
        }
      }
      const prefix = store.prefixBuffer;
      const notices = new ReconnectNotices();
      const printEvents = (events: IEvent[]) => {
        for (const e of events) print(show(e.type === 'Delete' ? deleteEvent(decodeKey(prefix, e.kv.key), e.kv, e.prev_kv) : putEvent(decodeKey(prefix, e.kv.key), e.kv, e.prev_kv)));
      };
      // The package's own watch stream (src/pubsub/watch): it resumes from the next revision on any failure, and asks
      // for progress every WATCH_CHECK_MS against a read through another member, so a member that hangs (paused,
      // cut from its peers) keeps no stream open and silent.
      stream = new WatchStream(store.client, {
        readRevision: async () => (await store.count()).revision,
        checkMs: WATCH_CHECK_MS,
        logger: {},
        onResume: (reason, error) => {
          const notice = notices.disconnected(Date.now());
          const cause = reason === 'stalled' ? 'its member fell silent or behind the cluster' : streamCause(error);
          if (notice?.kind === 'down') printError(`watch: disconnected from etcd (${cause}); reconnecting`);
          if (notice?.kind === 'still-down') {
            void whyDown(store, error).then((why) => stopped.signal.aborted || printError(`watch: still reconnecting after ${duration(notice.elapsedMs)}: ${why}`));
          }
        },
        onConnected: () => {
          const notice = notices.connected(Date.now());
          if (notice?.kind === 'back') printError(`watch: reconnected after ${duration(notice.elapsedMs)}`);
        },
        onOversize: (error) => printError(`watch: ${error.message}`),
      });
      const watching = stream;
      const watchFrom = async (from: bigint | undefined): Promise<void> => {
        await watching.watch(
          { prefix, deletes: true, previous: true, ...(from === undefined ? {} : { from }) },
          {
            onEvents: printEvents,
            onCanceled: (compactRevision, reason) => {
              // The changes it was to resume from are gone (compacted, or too large to receive): say so, and go on from now.
              printError(
                compactRevision === undefined
                  ? `watch: etcd ended the watch (${reason}); changes since the last one shown may be missing; watching from now`
                  : `watch: etcd compacted its history up to revision ${compactRevision}; changes since the last one shown cannot be shown; watching from now`,
              );
              void watchFrom(undefined).catch((error: unknown) => stopped.signal.aborted || printError(`watch: ${describeError(error)}`));
            },
          },
          stopped.signal,
        );
      };
      await withTimeout(watchFrom(BigInt(snapshot.revision) + 1n), settings.timeoutMs, () =>
        new EtcdUnavailableError('watch', 1, settings.timeoutMs, new Error(`no watch stream to ${settings.hosts.join(',')}`)),
      );
      printError(
        `watching ${quote(settings.prefix)} on ${settings.hosts.join(',')}: ${snapshot.count} lease(s) at revision ${snapshot.revision} (Ctrl-C to stop)`,
      );
      await untilInterrupted();
      return EXIT_OK;
    } finally {
      stopped.abort();
      stream?.close();
      store.close();
    }
  },
};

function heldEvent(lease: StoredLease, revision: string): WatchEvent {
  return { event: 'held', key: lease.key, ...holderFields(lease, undefined), fencingToken: lease.fencingToken, revision };
}

// etcd3 types `previous` as optional but passes null when the server sent no previous value.
function putEvent(key: string, kv: IKeyValue, previous: IKeyValue | null | undefined): WatchEvent {
  const now = decodeLeaseValue(kv.value);
  const before = previous == null ? undefined : decodeLeaseValue(previous.value);
  const event = before === undefined ? 'acquired' : before.owner === now.owner && before.metadata === now.metadata ? 'renewed' : 'transferred';
  return { event, key, ...holderFields(now, before), fencingToken: kv.mod_revision, revision: kv.mod_revision };
}

function deleteEvent(key: string, kv: IKeyValue, previous: IKeyValue | null | undefined): WatchEvent {
  const before = previous == null ? undefined : decodeLeaseValue(previous.value);
  return { event: 'freed', key, ...holderFields(undefined, before), fencingToken: null, revision: kv.mod_revision };
}

/** owner / metadata / previousOwner / previousMetadata, the metadata fields only when there is metadata. */
function holderFields(now: LeaseHolder | undefined, before: LeaseHolder | undefined): Pick<WatchEvent, 'owner' | 'metadata' | 'previousOwner' | 'previousMetadata'> {
  return {
    owner: now?.owner ?? null,
    ...(now?.metadata === undefined ? {} : { metadata: now.metadata }),
    previousOwner: before?.owner ?? null,
    ...(before?.metadata === undefined ? {} : { previousMetadata: before.metadata }),
  };
}

function formatEvent(e: WatchEvent): string {
  const head = `rev ${e.revision}  ${e.event.padEnd(11)} ${quote(e.key)}`;
  const holder = (owner: string | null, metadata: string | undefined): string =>
    holderText({ owner: owner as string, ...(metadata === undefined ? {} : { metadata }) });
  switch (e.event) {
    case 'held':
    case 'acquired':
    case 'renewed':
      return `${head}  owner ${holder(e.owner, e.metadata)}  token ${e.fencingToken}`;
    case 'transferred':
      return `${head}  ${holder(e.previousOwner, e.previousMetadata)} -> ${holder(e.owner, e.metadata)}  token ${e.fencingToken}`;
    case 'freed':
      return e.previousOwner === null ? head : `${head}  was ${holder(e.previousOwner, e.previousMetadata)}`;
  }
}

/**
 * Why the stream cannot come back, per endpoint: a read through the CLI's own client, whose failure names what each
 * endpoint last failed with. A read that works means etcd serves, and the stream's own error is the cause.
 */
async function whyDown(store: LeaseStore, streamError: unknown): Promise<string> {
  try {
    await store.count();
    return `etcd answers reads, but the watch stream fails (${streamCause(streamError)})`;
  } catch (error) {
    if (error instanceof EtcdUnavailableError && error.endpoints.length > 0) return error.endpoints.map((e) => `${e.endpoint} ${e.detail}`).join('; ');
    return describeError(error);
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
