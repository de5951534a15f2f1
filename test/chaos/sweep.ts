import { Recorder } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { EtcdLeaseProvider } from '../../src/index.js';

export interface SweepOptions {
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly keys: readonly string[];
  readonly ttlMs: number;
  /** The run's history: the sweeper's calls are added to it. */
  readonly history: RecordedOp[];
  /** Gives up on keys still held after this long. */
  readonly timeoutMs: number;
}

/**
 * Once the workload has stopped, every holder has stopped renewing and believes until its last renew was sent
 * + ttl. The sweeper then takes every key as soon as it is free (polling each every 100 ms), recording each
 * call: a key etcd let go before its last holder's belief ended becomes two believing owners the checker sees.
 * Resolves with the keys it won.
 */
export async function sweepKeys(options: SweepOptions): Promise<string[]> {
  const provider = new EtcdLeaseProvider({ hosts: [...options.endpoints], prefix: options.prefix });
  const recorder = new Recorder('sweeper', provider, (op) => options.history.push(op));
  const end = performance.now() + options.timeoutMs;
  try {
    const won = await Promise.all(
      options.keys.map(async (key) => {
        while (performance.now() < end) {
          if ((await recorder.acquire(key, 'sweeper', options.ttlMs)) === true) return key;
          await new Promise((r) => setTimeout(r, 100));
        }
        return undefined;
      }),
    );
    return won.filter((key) => key !== undefined);
  } finally {
    await provider.close();
  }
}
