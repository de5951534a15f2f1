import type { RecordedOp } from '../../safety-checker/types.js';
import type { VariantName } from './variants.js';

/** How the chaos run configures one worker process (passed as one JSON environment variable). */
export interface WorkerConfig {
  readonly name: string;
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly keys: readonly string[];
  readonly ttlMs: number;
  readonly holders: number;
  readonly seed: number;
  readonly variant: VariantName;
}

export const WORKER_CONFIG_ENV = 'CHAOS_WORKER_CONFIG';

/** Parent to worker, one JSON line each on stdin. */
export type WorkerCommand =
  /** Emulate a suspend of the whole process for `ms` (SuspendableClock.suspendProcess). */
  | { readonly cmd: 'suspend'; readonly ms: number }
  /** Stop every holder, wait for every call in flight, close the provider, exit. */
  | { readonly cmd: 'stop' };

/** Worker to parent, one JSON line each on stdout. Times are on the machine clock (safety-checker/recorder.ts). */
export type WorkerMessage =
  | { readonly ready: true }
  | { readonly op: RecordedOp }
  | { readonly suspended: { readonly from: number; readonly to: number } }
  | { readonly stopped: true };
