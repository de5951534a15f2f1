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
  /** Step the process's wall clock by `ms` (negative: back), as NTP or an operator does; the monotonic clock keeps time. */
  | { readonly cmd: 'step-clock'; readonly ms: number }
  /** Fresh reads and acquires of keys of its own, as fast as the provider takes them, for `ms` (errors ignored). */
  | { readonly cmd: 'flood'; readonly ms: number }
  /** Stop every holder, wait for every call in flight, close the provider, exit. */
  | { readonly cmd: 'stop' };

/** Worker to parent, one JSON line each on stdout. Times are on the machine clock (safety-checker/recorder.ts). */
export type WorkerMessage =
  | { readonly ready: true }
  | { readonly op: RecordedOp }
  | { readonly suspended: { readonly from: number; readonly to: number } }
  | { readonly stepped: true }
  /** The flood is over: calls it made and how many of them failed. */
  | { readonly flooded: { readonly calls: number; readonly errors: number } }
  | { readonly stopped: true };
