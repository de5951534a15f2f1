import type { LeaseCallOptions } from './call-options.js';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/**
 * The run-metadata extension adds optional run metadata (a string) where this provider took its per-call
 * options. A string (or `undefined`) there is metadata; an object is call options, so calls written for either
 * shape keep working: `acquireLease(k, o, ttl, { signal })` and `acquireLease(k, o, ttl, runId, { signal })`.
 */
export function splitMetadata(
  parameter: string,
  metadataOrCall: string | LeaseCallOptions | undefined,
  call: LeaseCallOptions | undefined,
): { metadata: string | undefined; call: LeaseCallOptions | undefined } {
  if (metadataOrCall === undefined || typeof metadataOrCall === 'string') {
    if (metadataOrCall !== undefined) checkMetadata(parameter, metadataOrCall);
    return { metadata: metadataOrCall, call };
  }
  if (typeof metadataOrCall === 'object' && metadataOrCall !== null && call === undefined) return { metadata: undefined, call: metadataOrCall };
  throw new LeaseArgumentTypeError(parameter, `must be a string (run metadata) or omitted, got ${metadataOrCall === null ? 'null' : typeof metadataOrCall}`);
}

/**
 * Metadata is compared byte for byte, so it must be a string that survives UTF-8 (no lone surrogates, which
 * Node would silently replace — two different run ids would then match). The empty string is a value, distinct
 * from no metadata.
 */
export function checkMetadata(parameter: string, value: unknown): asserts value is string | undefined {
  if (value === undefined) return;
  if (typeof value !== 'string') throw new LeaseArgumentTypeError(parameter, `must be a string or undefined, got ${value === null ? 'null' : typeof value}`);
  if (!value.isWellFormed()) {
    throw new LeaseArgumentTypeError(parameter, 'contains a lone UTF-16 surrogate, which cannot be stored in etcd without aliasing another string');
  }
}
