/**
 * 64-bit integers on protobuf's wire, as etcd3 carries them: decimal strings (int64 signed, uint64 unsigned). Most
 * values on the hot path (revisions, counts) are below 2^53 and take plain Number arithmetic; lease ids and member ids
 * are not, and take BigInt.
 */

/** 2^32, for splitting a varint's value into 32-bit halves. */
const TWO_32 = 4294967296;

/** An int64 as two 32-bit halves of its two's-complement form (what a varint encodes). */
export interface Halves {
  lo: number;
  hi: number;
}

/**
 * The two's-complement halves of an int64 given as etcd3's callers give it (a decimal string, a safe integer or a
 * bigint), or false for anything protobufjs would convert some other way (a Long object, a fraction, a string that is
 * not a decimal integer) — the caller then leaves the request to etcd3's own encoder.
 */
export function int64Halves(value: unknown, into: Halves): boolean {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return false;
    if (value >= 0) {
      into.lo = value % TWO_32;
      into.hi = Math.floor(value / TWO_32);
      return true;
    }
    return bigHalves(BigInt(value), into);
  }
  if (typeof value === 'string') return decimalHalves(value, into);
  if (typeof value === 'bigint') return bigHalves(value, into);
  return false;
}

/**
 * A decimal string: up to 15 digits (a revision, a count) parsed as a double, which holds them exactly; longer ones
 * (lease ids, near 2^63) through BigInt, remembered — a batch names the same few pooled leases over and over.
 */
function decimalHalves(value: string, into: Halves): boolean {
  const length = value.length;
  if (length > 0 && length <= 15) {
    let n = 0;
    for (let i = 0; i < length; i++) {
      const digit = value.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return longHalves(value, into);
      n = n * 10 + digit;
    }
    into.lo = n % TWO_32;
    into.hi = Math.floor(n / TWO_32);
    return true;
  }
  return longHalves(value, into);
}

const recentLong = new Map<string, Halves | undefined>();

function longHalves(value: string, into: Halves): boolean {
  let known = recentLong.get(value);
  if (known === undefined && !recentLong.has(value)) {
    const parsed: Halves = { lo: 0, hi: 0 };
    known = /^-?\d{1,20}$/.test(value) && bigHalves(BigInt(value), parsed) ? parsed : undefined;
    if (recentLong.size >= 64) recentLong.clear();
    recentLong.set(value, known);
  }
  if (known === undefined) return false;
  into.lo = known.lo;
  into.hi = known.hi;
  return true;
}

function bigHalves(value: bigint, into: Halves): boolean {
  if (value < -(1n << 63n) || value >= 1n << 64n) return false;
  const bits = BigInt.asUintN(64, value);
  into.lo = Number(bits & 0xffffffffn);
  into.hi = Number(bits >> 32n);
  return true;
}

/** Bytes of the varint of an int64 given as halves. */
export function varintLength(lo: number, hi: number): number {
  if (hi === 0) return lo < 0x80 ? 1 : lo < 0x4000 ? 2 : lo < 0x200000 ? 3 : lo < 0x10000000 ? 4 : 5;
  // Beyond 32 bits: 4 bytes of the low half (28 bits), then 7 bits per byte of the rest.
  let length = 5;
  for (let rest = Math.floor(hi / 8); rest > 0; rest = Math.floor(rest / 128)) length++;
  return length;
}

/** The decimal string of the int64 (`signed`) or uint64 whose halves are given. */
export function halvesToDecimal(lo: number, hi: number, signed: boolean): string {
  if (hi < 0x200000) return String(hi * TWO_32 + lo); // below 2^53: exact as a double
  const bits = (BigInt(hi) << 32n) | BigInt(lo);
  return (signed ? BigInt.asIntN(64, bits) : bits).toString();
}
