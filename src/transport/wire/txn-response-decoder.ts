import { halvesToDecimal } from './int64.js';

/**
 * etcd's TxnResponse decoded by hand into exactly the object etcd3's decoder gives (proto-loader's `toObject` with
 * `longs: String, defaults: true, oneofs: true`): every field present with its default, int64 and uint64 as decimal
 * strings, bytes as Buffers viewing the response, a set `oneof` named in `response`, messages absent as null — so
 * every reader of a Txn answer sees the same values whichever decoder made it. Decoding and then converting every
 * field of every nested answer is the other large part of a group-committed call's client CPU.
 *
 * Throws on malformed input (the caller then hands the bytes to etcd3's decoder, which reports it as it would).
 */
export function decodeTxnResponse(bytes: Buffer): TxnResponseObject {
  const r = new Reader(bytes);
  return readTxnResponse(r, bytes.length);
}

export interface ResponseHeaderObject {
  cluster_id: string;
  member_id: string;
  revision: string;
  raft_term: string;
}

export interface KeyValueObject {
  key: Buffer;
  create_revision: string;
  mod_revision: string;
  version: string;
  value: Buffer;
  lease: string;
}

export interface ResponseOpObject {
  response_range?: { kvs: KeyValueObject[]; header: ResponseHeaderObject | null; more: boolean; count: string };
  response_put?: { header: ResponseHeaderObject | null; prev_kv: KeyValueObject | null };
  response_delete_range?: { prev_kvs: KeyValueObject[]; header: ResponseHeaderObject | null; deleted: string };
  response_txn?: TxnResponseObject;
  response?: 'response_range' | 'response_put' | 'response_delete_range' | 'response_txn';
}

export interface TxnResponseObject {
  responses: ResponseOpObject[];
  header: ResponseHeaderObject | null;
  succeeded: boolean;
}

const EMPTY = Buffer.alloc(0);

class Reader {
  pos = 0;
  /** The halves of the last varint read by `varint64`. */
  lo = 0;
  hi = 0;

  constructor(readonly buf: Buffer) {}

  /** A varint that fits 32 bits unsigned (tags, lengths, bools); the bits above are dropped, as protobufjs does. */
  uint32(): number {
    const buf = this.buf;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte(buf);
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value > 0xffffffff ? value % 4294967296 : value;
    }
    // A longer varint: drop its high bytes.
    while (this.byte(buf) >= 0x80);
    return value % 4294967296;
  }

  /** A varint of up to 64 bits, into `lo` and `hi`. */
  varint64(): void {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let b = 0;
    for (let i = 0; i < 4; i++) {
      b = this.byte(buf);
      lo |= (b & 0x7f) << (i * 7);
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = 0;
        return;
      }
    }
    b = this.byte(buf);
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x7f) >> 4;
    if (b >= 0x80) {
      for (let i = 0; i < 5; i++) {
        b = this.byte(buf);
        hi |= (b & 0x7f) << (i * 7 + 3);
        if (b < 0x80) break;
        if (i === 4) throw new RangeError('varint longer than 10 bytes');
      }
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  int64(): string {
    this.varint64();
    return halvesToDecimal(this.lo, this.hi, true);
  }

  uint64(): string {
    this.varint64();
    return halvesToDecimal(this.lo, this.hi, false);
  }

  bool(): boolean {
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  /** A length-delimited field's end position. */
  end(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.buf.length) throw new RangeError('length beyond the end of the message');
    return end;
  }

  bytes(): Buffer {
    const end = this.end();
    const value = this.buf.subarray(this.pos, end);
    this.pos = end;
    return value;
  }

  /** Skips a field of an unknown number. */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint64();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.end();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new RangeError(`wire type ${wireType} in a Txn response`);
    }
    if (this.pos > this.buf.length) throw new RangeError('field beyond the end of the message');
  }

  private byte(buf: Buffer): number {
    if (this.pos >= buf.length) throw new RangeError('varint beyond the end of the message');
    return buf[this.pos++]!;
  }
}

/**
 * Reads a message's fields up to `end` into `out`: `field` takes the fields it knows (returns false for any other,
 * which is skipped, as protobufjs skips unknown fields).
 */
function readMessage<T>(r: Reader, end: number, out: T, field: (r: Reader, out: T, tag: number) => boolean): T {
  while (r.pos < end) {
    const tag = r.uint32();
    if (!field(r, out, tag)) r.skip(tag & 7);
  }
  return out;
}

// Tags: (field number << 3) | wire type (0 varint, 2 length-delimited).

function readTxnResponse(r: Reader, end: number): TxnResponseObject {
  return readMessage<TxnResponseObject>(r, end, { responses: [], header: null, succeeded: false }, txnField);
}

function txnField(r: Reader, out: TxnResponseObject, tag: number): boolean {
  if (tag === ((1 << 3) | 2)) out.header = readHeader(r, r.end());
  else if (tag === 2 << 3) out.succeeded = r.bool();
  else if (tag === ((3 << 3) | 2)) out.responses.push(readResponseOp(r, r.end()));
  else return false;
  return true;
}

function readHeader(r: Reader, end: number): ResponseHeaderObject {
  return readMessage<ResponseHeaderObject>(r, end, { cluster_id: '0', member_id: '0', revision: '0', raft_term: '0' }, headerField);
}

function headerField(r: Reader, out: ResponseHeaderObject, tag: number): boolean {
  if (tag === 1 << 3) out.cluster_id = r.uint64();
  else if (tag === 2 << 3) out.member_id = r.uint64();
  else if (tag === 3 << 3) out.revision = r.int64();
  else if (tag === 4 << 3) out.raft_term = r.uint64();
  else return false;
  return true;
}

function readResponseOp(r: Reader, end: number): ResponseOpObject {
  return readMessage<ResponseOpObject>(r, end, {}, responseOpField);
}

/** A ResponseOp is a oneof: the member read last is the one `response` names. */
function responseOpField(r: Reader, out: ResponseOpObject, tag: number): boolean {
  if (tag === ((1 << 3) | 2)) {
    out.response_range = readMessage<RangeObject>(r, r.end(), { kvs: [], header: null, more: false, count: '0' }, rangeField);
    out.response = 'response_range';
  } else if (tag === ((2 << 3) | 2)) {
    out.response_put = readMessage<PutObject>(r, r.end(), { header: null, prev_kv: null }, putField);
    out.response = 'response_put';
  } else if (tag === ((3 << 3) | 2)) {
    out.response_delete_range = readMessage<DeleteObject>(r, r.end(), { prev_kvs: [], header: null, deleted: '0' }, deleteField);
    out.response = 'response_delete_range';
  } else if (tag === ((4 << 3) | 2)) {
    out.response_txn = readTxnResponse(r, r.end());
    out.response = 'response_txn';
  } else {
    return false;
  }
  return true;
}

type RangeObject = NonNullable<ResponseOpObject['response_range']>;
type PutObject = NonNullable<ResponseOpObject['response_put']>;
type DeleteObject = NonNullable<ResponseOpObject['response_delete_range']>;

function rangeField(r: Reader, out: RangeObject, tag: number): boolean {
  if (tag === ((1 << 3) | 2)) out.header = readHeader(r, r.end());
  else if (tag === ((2 << 3) | 2)) out.kvs.push(readKeyValue(r, r.end()));
  else if (tag === 3 << 3) out.more = r.bool();
  else if (tag === 4 << 3) out.count = r.int64();
  else return false;
  return true;
}

function putField(r: Reader, out: PutObject, tag: number): boolean {
  if (tag === ((1 << 3) | 2)) out.header = readHeader(r, r.end());
  else if (tag === ((2 << 3) | 2)) out.prev_kv = readKeyValue(r, r.end());
  else return false;
  return true;
}

function deleteField(r: Reader, out: DeleteObject, tag: number): boolean {
  if (tag === ((1 << 3) | 2)) out.header = readHeader(r, r.end());
  else if (tag === 2 << 3) out.deleted = r.int64();
  else if (tag === ((3 << 3) | 2)) out.prev_kvs.push(readKeyValue(r, r.end()));
  else return false;
  return true;
}

function readKeyValue(r: Reader, end: number): KeyValueObject {
  return readMessage<KeyValueObject>(r, end, { key: EMPTY, create_revision: '0', mod_revision: '0', version: '0', value: EMPTY, lease: '0' }, keyValueField);
}

function keyValueField(r: Reader, out: KeyValueObject, tag: number): boolean {
  if (tag === ((1 << 3) | 2)) out.key = r.bytes();
  else if (tag === 2 << 3) out.create_revision = r.int64();
  else if (tag === 3 << 3) out.mod_revision = r.int64();
  else if (tag === 4 << 3) out.version = r.int64();
  else if (tag === ((5 << 3) | 2)) out.value = r.bytes();
  else if (tag === 6 << 3) out.lease = r.int64();
  else return false;
  return true;
}
