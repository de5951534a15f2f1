// In your app: import { loadEtcdOptionsFromEnv } from 'etcd-lease-provider';
import { loadEtcdOptionsFromEnv } from '../../../src/index.js';
import type { EtcdPubSubOptions } from '../../../src/mastra/etcd-pubsub-options.js';
import { streamPartsWriteBehind } from '../../../src/mastra/etcd-pubsub-publish-modes.js';

/** Everything the app reads from its environment, checked once at start-up. */
export interface AppConfig {
  port: number;
  /** Connection, lease and event options of the one etcd cluster every instance shares. */
  etcd: EtcdPubSubOptions;
  /** `'deny'`: refuse to start a run while etcd is unreachable; `'throw'`: let Mastra run it anyway. */
  onAcquireError: 'throw' | 'deny';
  /** A Mastra model id such as `openai/gpt-4o-mini`; unset: the offline echo model. */
  model: string | undefined;
  /** How long the echo model takes to answer (`ECHO_DELAY_MS`, default 5000): time to send a second message. */
  echoDelayMs: number;
}

type Env = Record<string, string | undefined>;

export function readConfig(env: Env = process.env): AppConfig {
  // The package's own loader: ETCD_ENDPOINTS, ETCD_CA_FILE / ETCD_CERT_FILE / ETCD_KEY_FILE, ETCD_USERNAME /
  // ETCD_PASSWORD, ETCD_PREFIX and ETCD_EVENT_PREFIX, read and checked the way the library and the CLI read them.
  const etcd: EtcdPubSubOptions = loadEtcdOptionsFromEnv(env);
  // 'write-behind': a thread's token chunks reach etcd in batches (about 40 writes/s per streaming thread at most)
  // instead of one write per chunk; run lifecycle and routed messages stay durable.
  const streamParts = env.MASTRA_STREAM_PARTS ?? 'durable';
  if (streamParts !== 'durable' && streamParts !== 'write-behind') {
    throw new Error(`MASTRA_STREAM_PARTS must be 'durable' or 'write-behind', got '${streamParts}'`);
  }
  if (streamParts === 'write-behind') etcd.publishMode = streamPartsWriteBehind;

  const onAcquireError = env.LEASE_ON_ETCD_ERROR ?? 'throw';
  if (onAcquireError !== 'throw' && onAcquireError !== 'deny') {
    throw new Error(`LEASE_ON_ETCD_ERROR must be 'throw' or 'deny', got '${onAcquireError}'`);
  }

  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number, got '${env.PORT}'`);

  const echoDelayMs = Number(env.ECHO_DELAY_MS ?? 5000);
  if (!Number.isInteger(echoDelayMs) || echoDelayMs < 0) throw new Error(`ECHO_DELAY_MS must be a whole number of milliseconds, got '${env.ECHO_DELAY_MS}'`);

  return {
    port,
    etcd,
    onAcquireError,
    model: env.MASTRA_MODEL?.trim() || undefined,
    echoDelayMs,
  };
}
