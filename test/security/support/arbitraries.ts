import fc from 'fast-check';
import type { LeaseOp } from './lease-model.js';

/** One UTF-16 code unit of any value: NUL, controls, and both halves of surrogate pairs on their own. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
/** One code point, astral ones included (as a well-formed surrogate pair). */
const codePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
const interesting = fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uFFFD', '/', '\\', '%', '\u202E', '🧵');

/** Strings of any UTF-16 content, lone surrogates included, up to `maxLength` units. */
export function anyText(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit: fc.oneof(codeUnit, codePoint, interesting), maxLength });
}

/** Very long strings: a random stem repeated, from a few KiB up to past the size one entry may have. */
export const longText = fc
  .tuple(anyText(8).filter((s) => s.length > 0), fc.integer({ min: 1_000, max: 300_000 }))
  .map(([stem, length]) => stem.repeat(Math.ceil(length / stem.length)).slice(0, length));

/** Every kind of ttlMs a caller might pass, valid and not. */
export const anyTtl: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(0, -0, -1, NaN, Infinity, -Infinity, 0.5, Number.MIN_VALUE, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER, 9e12, 9e12 + 1),
  fc.double({ noNaN: false }),
  fc.integer({ min: -1_000_000, max: 100_000_000 }),
  fc.constantFrom('5000', null, undefined, 5000n, {}, [5000], true),
);

/** A small world of keys and owners, so that operations of a sequence actually meet. */
const KEYS = ['a', 'a\u0000b', 'résumé/线程/🧵'];
const OWNERS = ['A', 'B', `mastra-thread-owner:${JSON.stringify({ runId: 'r1', pid: 42 })}`];

const leaseOp: fc.Arbitrary<LeaseOp> = fc.oneof(
  fc.record({ kind: fc.constant('acquire' as const), key: fc.constantFrom(...KEYS), owner: fc.constantFrom(...OWNERS) }),
  fc.record({ kind: fc.constant('get' as const), key: fc.constantFrom(...KEYS) }),
  fc.record({ kind: fc.constant('release' as const), key: fc.constantFrom(...KEYS), owner: fc.constantFrom(...OWNERS) }),
  fc.record({ kind: fc.constant('renew' as const), key: fc.constantFrom(...KEYS), owner: fc.constantFrom(...OWNERS) }),
  fc.record({
    kind: fc.constant('transfer' as const),
    key: fc.constantFrom(...KEYS),
    from: fc.constantFrom(...OWNERS),
    to: fc.constantFrom(...OWNERS),
  }),
);

/** A short sequence of operations, each sent through one of two clients. */
export const opSequence = fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), leaseOp), { minLength: 1, maxLength: 12 });
