import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/**
 * Largest key + stored values (owner with metadata, in UTF-8 bytes) the provider accepts. etcd's default
 * `--max-request-bytes` is 1.5 MiB, and one transaction names its key in every compare and write: a transfer
 * carries the key 12 times and the new holder's value 5 times (operations/transfer.ts). 100 KiB keeps every
 * request shape under the limit.
 */
export const MAX_ENTRY_BYTES = 100 * 1024;

/**
 * Why lone surrogates are rejected: UTF-8 cannot encode them, and Node's encoder silently turns
 * each into U+FFFD — so `"a\uD800"` and `"a\uDBFF"` would alias to the same etcd key. Rejecting them is
 * the only choice that never merges two distinct strings into one lease.
 */
export function checkText(parameter: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new LeaseArgumentTypeError(parameter, `must be a string, got ${describe(value)}`);
  }
  if (value.length === 0) {
    throw new LeaseArgumentTypeError(parameter, 'must be a non-empty string');
  }
  if (!value.isWellFormed()) {
    throw new LeaseArgumentTypeError(
      parameter,
      'contains a lone UTF-16 surrogate, which cannot be stored in etcd without aliasing another string',
    );
  }
}

/** Encodes a lease key to its etcd key: the prefix bytes followed by the key's UTF-8 bytes (NUL included, verbatim). */
export function encodeKey(prefix: Buffer, key: string): Buffer {
  return Buffer.concat([prefix, Buffer.from(key, 'utf8')]);
}

/** Inverse of `encodeKey` for keys read back from a range under the prefix. */
export function decodeKey(prefix: Buffer, etcdKey: Buffer): string {
  return etcdKey.subarray(prefix.length).toString('utf8');
}

/** Key plus every stored value a request carries (owners with their metadata) must fit MAX_ENTRY_BYTES. */
export function checkEntrySize(key: Buffer, values: ReadonlyArray<string | Buffer>): void {
  const bytes = key.length + values.reduce((n, v) => n + (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.length), 0);
  if (bytes > MAX_ENTRY_BYTES) {
    throw new LeaseArgumentRangeError(
      'key',
      `key, owner and metadata together are ${bytes} bytes; at most ${MAX_ENTRY_BYTES} bytes fit in one etcd request`,
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return typeof value;
}
