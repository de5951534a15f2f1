import type { IKeyValue, Watcher } from 'etcd3';
import { decodeLeaseValue } from '../keys/lease-value.js';

/** What a watch on one lease key reports to its user. */
export type KeyWatchEvent =
  /** The watch is (re)established. Events missed while disconnected are replayed by etcd3, but a re-check is cheap. */
  | { type: 'connected' }
  /** The watch stream broke; etcd3 reconnects with backoff. */
  | { type: 'disconnected' }
  /** The key was written by `owner` (with run `metadata`, if any); `revision` is the write's revision. */
  | { type: 'put'; owner: string; metadata?: string; revision: string }
  /** The key was deleted (released, or its etcd lease expired). */
  | { type: 'delete'; revision: string }
  /** etcd cancelled the watch (for example its start revision was compacted): open a new one. */
  | { type: 'broken'; error: unknown };

/** A running watch; `close()` never waits for the server. */
export interface KeyWatch {
  close(): void;
}

/** Opens a watch on one lease key, from `startRevision` when given (else from now). */
export type OpenKeyWatch = (key: string, onEvent: (event: KeyWatchEvent) => void, startRevision?: string) => KeyWatch;

/**
 * Adapts an etcd3 `Watcher` (built with `WatchBuilder.watcher()`, which attaches without waiting) to
 * `KeyWatchEvent`s.
 *
 * `WatchBuilder.create()` is not used: it waits for 'connected' with no bound and, if that never comes
 * (cluster unreachable), leaves a watcher nobody can cancel.
 */
export function adaptWatcher(watcher: Watcher, onEvent: (event: KeyWatchEvent) => void): KeyWatch {
  let closed = false;
  const emit = (event: KeyWatchEvent) => {
    if (!closed) onEvent(event);
  };
  watcher.on('connected', () => emit({ type: 'connected' }));
  watcher.on('disconnected', () => emit({ type: 'disconnected' }));
  watcher.on('put', (kv: IKeyValue) => emit({ type: 'put', ...decodeLeaseValue(kv.value), revision: kv.mod_revision }));
  watcher.on('delete', (kv: IKeyValue) => emit({ type: 'delete', revision: kv.mod_revision }));
  // Always listened to, also after close: an EventEmitter 'error' without a listener would throw.
  watcher.on('error', (error: unknown) => emit({ type: 'broken', error }));
  return {
    close() {
      if (closed) return;
      closed = true;
      // cancel() resolves when the server confirms; a hung member must not hold up whoever closes the watch.
      watcher.cancel().catch(() => {});
    },
  };
}
