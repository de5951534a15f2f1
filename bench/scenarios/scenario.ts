import type { Etcd3 } from 'etcd3';
import type { Redis } from 'ioredis';
import type { EtcdLeaseProvider } from '../../src/index.js';
import type { Operation } from '../load.js';

/** Clients shared by every scenario of a run (one long-lived process, as in production). */
export interface BenchClients {
  /** Plain `etcd3` client with default options, for the baselines. */
  etcd: Etcd3;
  /**
   * A plain `etcd3` client given the leader's endpoint alone (found when the run starts), for the references sent
   * straight to the leader: the provider routes its attempts there too (transport/leader-finder.ts), so these show
   * what is left of its distance once the route is the same.
   */
  leader: Etcd3;
  redis: Redis;
  provider: EtcdLeaseProvider;
  /** An earlier build's provider (BENCH_BASELINE_DIST), for the baseline rows. */
  baseline?: EtcdLeaseProvider;
}

/** What a scenario needs in order to run once: its operation, and how to undo what it wrote. */
export interface Prepared {
  op: Operation;
  /** Removes what this run created beyond plain keys (etcd leases, redis keys); keys are swept by the runner. */
  cleanup?(): Promise<void>;
}

export type Family = 'raw-txn' | 'raw-txn-leader' | 'raw-minimal-batch-leader' | 'raw-acquire-shape' | 'raw-batch' | 'raw-minimal-batch' | 'lease-per-key' | 'etcd-lock' | 'provider-acquire' | 'provider-mixed' | 'baseline-acquire' | 'redis';

export interface Scenario {
  /** Stable id, used in JSON and `--only`. */
  readonly id: string;
  readonly label: string;
  readonly family: Family;
  readonly callers: number;
  /** Keys one call claims (a batch); throughput is reported in keys/s. Default 1. */
  readonly keysPerCall?: number;
  /** `runId` is unique per (round, scenario) so every run writes fresh keys. Untimed. */
  prepare(clients: BenchClients, runId: string): Promise<Prepared>;
}

/** Every etcd key the benchmark writes lies under this prefix, so one range delete resets the cluster. */
export const BENCH_PREFIX = 'bench/';

/** TTL of a Mastra agent-thread lease (`MASTRA_AGENT_THREAD_LEASE_TTL_MS` default). */
export const THREAD_TTL_MS = 15_000;

/**
 * A long JSON-shaped owner token (a prefix + JSON, ~110 bytes; Mastra 1.71's owners are shorter run ids), used as the
 * stored value by every scenario so that etcd and Redis move the same bytes. Made once per caller: a caller has its
 * token already, and building it (a JSON.stringify) is no part of what any row measures.
 */
export function ownerToken(caller: number): string {
  let token = tokens.get(caller);
  if (token === undefined) {
    token = `mastra-thread-owner:${JSON.stringify({ runId: `run-${String(caller).padStart(6, '0')}-5f0c1e2a9b7d`, pid: process.pid, host: 'bench-host' })}`;
    tokens.set(caller, token);
  }
  return token;
}

const tokens = new Map<number, string>();
