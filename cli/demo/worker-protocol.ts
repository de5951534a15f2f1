import type { RecordedOp } from '../../safety-checker/types.js';
import type { ConnectionSettings } from '../connection.js';

/** Hidden subcommand of `etcd-lease` that runs one demo worker; the demo forks the CLI with it. */
export const WORKER_COMMAND = '__demo-worker';

/** A recorded op plus, for `error` outcomes, the error code (shown live; ignored by the checker). */
export interface DemoOp extends RecordedOp {
  readonly errorCode?: string;
}

export interface WorkerConfig {
  readonly workerId: string;
  readonly connection: ConnectionSettings;
  /** Thread keys to contend for (Mastra shape: resourceId + NUL + threadId). */
  readonly keys: readonly string[];
  readonly ttlMs: number;
  /** Most keys one worker holds at a time. */
  readonly maxHeld: number;
}

export type ParentMessage = { readonly type: 'start'; readonly config: WorkerConfig } | { readonly type: 'stop' };

export type WorkerMessage =
  | { readonly type: 'ready' }
  /** Ops that returned since the last batch, in the order they returned. */
  | { readonly type: 'ops'; readonly ops: readonly DemoOp[] }
  /** Every op was sent and the provider is closed; the worker exits next. */
  | { readonly type: 'done' }
  | { readonly type: 'failed'; readonly message: string };

/**
 * The one clock of a demo run. `performance.timeOrigin` is the wall-clock time this process
 * started, so timeOrigin + now() from different processes on one machine are comparable —
 * belief windows compare times across workers (docs/design.md#belief-windows).
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}
