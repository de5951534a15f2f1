import type { Etcd3 } from 'etcd3';
import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { checkText } from '../keys/key-codec.js';
import { POLICY } from '../policy.js';
import type { EtcdLeaseProviderOptions, LeaseLogger } from './options.js';
import { STDERR_LOGGER } from './stderr-logger.js';

/** Options after validation, with every default applied. */
export interface ResolvedOptions {
  hosts: string[] | undefined;
  client: Etcd3 | undefined;
  prefix: string;
  deadlineMs: number;
  attemptTimeoutMs: number;
  leaseBucketMs: number;
  maxBatchSize: number;
  renewCoalesceMs: number;
  readConsistency: 'linearizable' | 'serializable';
  contractResults: boolean;
  logger: LeaseLogger;
}

/** Defaults of the options; the fault-handling ones come from the one policy module (src/policy.ts). */
export const DEFAULTS = {
  prefix: 'mastra/lease/',
  deadlineMs: POLICY.deadlineMs,
  attemptTimeoutMs: POLICY.attemptTimeoutMs,
  leaseBucketMs: 1000,
  maxBatchSize: POLICY.batch.maxBatchSize,
  renewCoalesceMs: POLICY.renewCoalesceMs,
  readConsistency: 'linearizable',
} as const;

/** Validates constructor options once; every error names the option. */
export function resolveOptions(options: EtcdLeaseProviderOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new LeaseArgumentTypeError('options', 'must be an object with `hosts` or `client`');
  }
  const hosts = options.hosts === undefined ? undefined : resolveHosts(options.hosts);
  if ((hosts === undefined) === (options.client === undefined)) {
    throw new LeaseArgumentTypeError('options.hosts', 'give exactly one of `hosts` and `client`');
  }
  if (options.client !== undefined && (options.auth !== undefined || options.credentials !== undefined)) {
    throw new LeaseArgumentTypeError('options.client', '`auth` and `credentials` belong to the client you pass; set them there');
  }
  const prefix = options.prefix ?? DEFAULTS.prefix;
  checkText('options.prefix', prefix);
  const deadlineMs = positive('options.deadlineMs', options.deadlineMs ?? DEFAULTS.deadlineMs);
  const attemptTimeoutMs = Math.min(deadlineMs, positive('options.attemptTimeoutMs', options.attemptTimeoutMs ?? DEFAULTS.attemptTimeoutMs));
  const leaseBucketMs = positive('options.leaseBucketMs', options.leaseBucketMs ?? DEFAULTS.leaseBucketMs);
  const maxBatchSize = positive('options.maxBatchSize', options.maxBatchSize ?? DEFAULTS.maxBatchSize);
  if (!Number.isInteger(maxBatchSize)) throw new LeaseArgumentRangeError('options.maxBatchSize', 'must be a whole number');
  const renewCoalesceMs = options.renewCoalesceMs ?? DEFAULTS.renewCoalesceMs;
  if (typeof renewCoalesceMs !== 'number' || !Number.isFinite(renewCoalesceMs) || renewCoalesceMs < 0) {
    throw new LeaseArgumentRangeError('options.renewCoalesceMs', `must be a finite number ≥ 0, got ${String(renewCoalesceMs)}`);
  }
  const readConsistency = options.readConsistency ?? DEFAULTS.readConsistency;
  if (readConsistency !== 'linearizable' && readConsistency !== 'serializable') {
    throw new LeaseArgumentRangeError('options.readConsistency', "must be 'linearizable' or 'serializable'");
  }
  const contractResults = options.contractResults ?? false;
  if (typeof contractResults !== 'boolean') throw new LeaseArgumentTypeError('options.contractResults', 'must be true or false');
  return {
    contractResults,
    hosts,
    client: options.client,
    prefix,
    deadlineMs,
    attemptTimeoutMs,
    leaseBucketMs,
    maxBatchSize,
    renewCoalesceMs,
    readConsistency,
    logger: resolveLogger(options.logger),
  };
}

/** A given logger replaces the default one entirely: `{ debug }` alone (no `warn`) silences warnings too. */
function resolveLogger(logger: unknown): LeaseLogger {
  if (logger === undefined) return STDERR_LOGGER;
  if (typeof logger !== 'object' || logger === null) throw new LeaseArgumentTypeError('options.logger', 'must be an object with optional debug and warn methods');
  for (const level of ['debug', 'warn'] as const) {
    const method = (logger as Record<string, unknown>)[level];
    if (method !== undefined && typeof method !== 'function') throw new LeaseArgumentTypeError(`options.logger.${level}`, 'must be a function (message, fields) => void');
  }
  return logger as LeaseLogger;
}

function resolveHosts(hosts: unknown): string[] {
  const list = typeof hosts === 'string' ? hosts.split(',').map((h) => h.trim()) : hosts;
  if (!Array.isArray(list) || list.length === 0 || !list.every((h) => typeof h === 'string' && h.length > 0)) {
    throw new LeaseArgumentTypeError('options.hosts', 'must be a non-empty string or a non-empty array of endpoint strings');
  }
  return list as string[];
}

function positive(parameter: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LeaseArgumentRangeError(parameter, `must be a finite number above 0, got ${String(value)}`);
  }
  return value;
}
