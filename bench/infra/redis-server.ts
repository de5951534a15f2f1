import { join } from 'node:path';
import { Redis } from 'ioredis';
import { spawnLogged } from './child.js';
import { freePorts } from '../../launcher/free-ports.js';
import { tempDir } from './temp-dir.js';

export interface BenchRedis {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * A throwaway `redis-server` on a free loopback port: no persistence (`--save ''`, no AOF), like the
 * single-node Redis most Mastra users point `RedisStreamsPubSub` at, so it is the fastest Redis can be.
 */
export async function startBenchRedis(options: { bin?: string; startTimeoutMs?: number } = {}): Promise<BenchRedis> {
  const bin = options.bin ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const tmp = tempDir('redis-lease-bench-');
  const dir = tmp.path;
  const [port] = (await freePorts(1)) as [number];
  const child = await spawnLogged(
    'redis-server',
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'],
    join(dir, 'redis.log'),
  ).catch((error: Error) => {
    tmp.remove();
    throw new Error(`${error.message} (install it with \`apt-get install -y redis-server\`, or set REDIS_SERVER_BIN)`);
  });
  const stop = async () => {
    await child.stop();
    tmp.remove();
  };
  const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {}); // refused connections while it starts are expected
  const giveUpAt = Date.now() + (options.startTimeoutMs ?? 10_000);
  try {
    for (;;) {
      if (child.exitReason()) throw new Error(`${child.exitReason()}:\n${child.logTail()}`);
      try {
        if (probe.status !== 'ready') await probe.connect();
        if ((await probe.ping()) === 'PONG') return { port, stop };
      } catch (error) {
        if (Date.now() > giveUpAt) throw new Error(`redis-server not ready on port ${port}: ${String(error)}\n${child.logTail()}`);
        probe.disconnect();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    probe.disconnect();
  }
}
