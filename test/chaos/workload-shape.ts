/**
 * The one workload shape the chaos run and the negative controls share, so a control is judged on exactly the
 * traffic the real provider passes under: 3 client processes of 4 Mastra-like holders each, contending for 6 keys
 * (one with a NUL byte, as Mastra's thread keys have) with a 4 s TTL — long enough that half of it, as a broken
 * provider might grant, is a whole second shorter once etcd rounds leases up to whole seconds.
 */
export const WORKLOAD_SHAPE = {
  processes: 3,
  holdersPerProcess: 4,
  keys: ['thread-a', 'thread-b', 'thread-c', 'thread-e', 'thread-f', 'res\u0000thread-d'],
  ttlMs: 4000,
} as const;

/**
 * Once the workload stops, the sweeper (sweep.ts) waits this long at most for every key: the last renews' ttl,
 * the lease slack (bucket + whole-second rounding + etcd's expiry check) and a margin.
 */
export const SWEEP_TIMEOUT_MS = WORKLOAD_SHAPE.ttlMs + 5000;
