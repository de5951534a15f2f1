import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';

/**
 * Largest key + owner (in UTF-8 bytes) the provider accepts. etcd's default
 * `--max-request-bytes` is 1.5 MiB; a transfer carries the key several times and the
 * owner twice, so one entry is held well under that to keep every request shape legal.
 */
export const MAX_ENTRY_BYTES = 256 * 1024;

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

export function checkEntrySize(key: Buffer, owners: string[]): void {
  const bytes = key.length + owners.reduce((n, o) => n + Buffer.byteLength(o, 'utf8'), 0);
  if (bytes > MAX_ENTRY_BYTES) {
    throw new LeaseArgumentRangeError(
      'key',
      `key and owner together are ${bytes} bytes; at most ${MAX_ENTRY_BYTES} bytes fit in one etcd request`,
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return typeof value;
}
