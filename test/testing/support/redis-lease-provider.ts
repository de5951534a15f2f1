import { Redis } from 'ioredis';

/**
 * A lease provider on Redis written the way Mastra's Redis pubsub backend writes its leases: acquire is `SET key
 * owner NX PX ttl` (and, when the key exists, a Lua script that refreshes it if the caller already owns it); renew,
 * release and transfer are Lua compare-and-set scripts on the owner value. Correct on one Redis server; the test
 * shows what a failover does to it. Commands go to the primary of the moment (`primaryPort()`), as a client behind
 * Sentinel would send them.
 */
export class RedisLeaseProvider {
  private clients = new Map<number, Redis>();

  constructor(private readonly primaryPort: () => number) {}

  async acquireLease(key: string, owner: string, ttlMs: number): Promise<{ acquired: boolean }> {
    const redis = this.client();
    if ((await redis.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK') return { acquired: true };
    const refreshed = await redis.eval(IF_OWNER_PEXPIRE, 1, key, owner, String(ttlMs));
    return { acquired: refreshed === 1 };
  }

  async renewLease(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.client().eval(IF_OWNER_PEXPIRE, 1, key, owner, String(ttlMs))) === 1;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    await this.client().eval(IF_OWNER_DELETE, 1, key, owner);
  }

  async transferLease(key: string, fromOwner: string, toOwner: string, ttlMs: number): Promise<boolean> {
    return (await this.client().eval(IF_OWNER_HAND_OVER, 1, key, fromOwner, toOwner, String(ttlMs))) === 1;
  }

  async getLeaseOwner(key: string): Promise<string | undefined> {
    return (await this.client().get(key)) ?? undefined;
  }

  async close(): Promise<void> {
    for (const client of this.clients.values()) client.disconnect();
    this.clients.clear();
  }

  private client(): Redis {
    const port = this.primaryPort();
    let client = this.clients.get(port);
    if (client === undefined) {
      // No reconnects, no retries: a call to a dead primary fails, as its caller must learn.
      client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => {});
      this.clients.set(port, client);
    }
    return client;
  }
}

const IF_OWNER_PEXPIRE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
const IF_OWNER_DELETE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;
const IF_OWNER_HAND_OVER = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;
