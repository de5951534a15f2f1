import { readFileSync } from 'node:fs';

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
}

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

function file(env: Env, name: string): Buffer | undefined {
  const path = env[name]?.trim();
  return path ? readFileSync(path) : undefined;
}

export function readConfig(env: Env = process.env): AppConfig {
  // ETCD_ENDPOINTS=https://etcd-0.etcd:2379,https://etcd-1.etcd:2379,https://etcd-2.etcd:2379
  const hosts = required(env, 'ETCD_ENDPOINTS')
    .split(',')
    .map((endpoint) => endpoint.trim())
    .filter(Boolean);

  const etcd: EtcdPubSubOptions = { hosts, prefix: env.ETCD_LEASE_PREFIX ?? 'mastra/lease/' };
  if (env.ETCD_EVENT_PREFIX) etcd.eventPrefix = env.ETCD_EVENT_PREFIX;
  // 'write-behind': a thread's token chunks reach etcd in batches (about 40 writes/s per streaming thread at most)
  // instead of one write per chunk; run lifecycle and routed messages stay durable.
  const streamParts = env.MASTRA_STREAM_PARTS ?? 'durable';
  if (streamParts !== 'durable' && streamParts !== 'write-behind') {
    throw new Error(`MASTRA_STREAM_PARTS must be 'durable' or 'write-behind', got '${streamParts}'`);
  }
  if (streamParts === 'write-behind') etcd.publishMode = streamPartsWriteBehind;
  const rootCertificate = file(env, 'ETCD_CA_FILE');
  if (rootCertificate) {
    // Client certificate and key are optional: etcd may authenticate by password instead.
    const certChain = file(env, 'ETCD_CERT_FILE');
    const privateKey = file(env, 'ETCD_KEY_FILE');
    etcd.credentials = { rootCertificate, ...(certChain && { certChain }), ...(privateKey && { privateKey }) };
  }
  if (env.ETCD_USERNAME) etcd.auth = { username: env.ETCD_USERNAME, password: required(env, 'ETCD_PASSWORD') };

  const onAcquireError = env.LEASE_ON_ETCD_ERROR ?? 'throw';
  if (onAcquireError !== 'throw' && onAcquireError !== 'deny') {
    throw new Error(`LEASE_ON_ETCD_ERROR must be 'throw' or 'deny', got '${onAcquireError}'`);
  }

  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number, got '${env.PORT}'`);

  return {
    port,
    etcd,
    onAcquireError,
    model: env.MASTRA_MODEL?.trim() || undefined,
  };
}
