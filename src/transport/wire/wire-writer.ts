import { varintLength } from './int64.js';

/** Writes protobuf fields into one buffer of a size known in advance (txn-request-encoder.ts sizes it first). */
export class WireWriter {
  readonly buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** A varint below 2^32 (tags, lengths, enum values, bools). */
  uint32(value: number): void {
    const buf = this.buf;
    while (value >= 0x80) {
      buf[this.pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[this.pos++] = value;
  }

  /** The varint of a 64-bit value given as halves (int64.ts). */
  varint64(lo: number, hi: number): void {
    if (hi === 0) return this.uint32(lo);
    const buf = this.buf;
    // The low 28 bits, then the 4 bits of `lo` left with 3 bits of `hi`, then the rest of `hi`.
    for (let i = 0; i < 4; i++) {
      buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    let rest = (lo & 0x0f) | ((hi & 0x07) << 4);
    hi >>>= 3;
    while (hi > 0) {
      buf[this.pos++] = rest | 0x80;
      rest = hi & 0x7f;
      hi >>>= 7;
    }
    buf[this.pos++] = rest;
  }

  bytes(value: Uint8Array): void {
    this.uint32(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }
}

/** Bytes of a varint below 2^32. */
export function uint32Length(value: number): number {
  return varintLength(value, 0);
}
