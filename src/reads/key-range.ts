/**
 * etcd ranges are half-open byte ranges [key, range_end), ordered by unsigned byte comparison. These two helpers
 * are the only arithmetic a prefix listing needs.
 */

/**
 * The `range_end` covering every key that starts with `prefix`: the prefix up to its last byte below 0xFF, that
 * byte plus one (etcd's own `GetPrefixRangeEnd`). A prefix of 0xFF bytes only has no such end: `\0`, which etcd
 * reads as "to the end of the keyspace".
 */
export function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = prefix[i]! + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

/** The smallest key after `key` in etcd's order: `key` plus a zero byte. A page continues from there. */
export function keyAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0])]);
}
