import { THREAD_TTL_MS, ownerToken, type Scenario } from './scenario.js';

/**
 * What Mastra's `RedisStreamsPubSub` does to win a lease today: `SET key owner NX PX ttl` on one
 * single-node Redis (no replication, no persistence). Not strongly consistent; the yardstick for speed.
 */
export function redisSetNx(callers: number): Scenario {
  return {
    id: `redis-set-nx-${callers}`,
    label: 'Redis SET NX PX (ioredis)',
    family: 'redis',
    callers,
    prepare: async ({ redis }, runId) => ({
      op: async (caller, seq) => (await redis.set(`bench:${runId}:${seq}`, ownerToken(caller), 'PX', THREAD_TTL_MS, 'NX')) === 'OK',
      // Emptied after each run so every run starts from the same (empty) keyspace.
      cleanup: async () => {
        await redis.flushall();
      },
    }),
  };
}
