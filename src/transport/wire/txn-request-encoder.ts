import type { ICompare, IDeleteRangeRequest, IPutRequest, IRangeRequest, IRequestOp, ITxnRequest } from 'etcd3';
import { int64Halves, varintLength, type Halves } from './int64.js';
import { uint32Length, WireWriter } from './wire-writer.js';

/**
 * etcd's TxnRequest encoded by hand, the bytes protobufjs would produce for the same object (etcd3 encodes through
 * proto-loader: `fromObject`, then `encode`; a dynamic conversion of every field of every nested sub-transaction,
 * the largest part of a group-committed call's client CPU). Fields are written in field-number order when present
 * (not null or undefined), as protobufjs writes a field its `fromObject` set.
 *
 * Returns undefined for anything this encoder does not take as protobufjs would — bytes given as a string (base64
 * there), an enum given by name, an int64 given as a Long object or a fraction — so that the caller can hand that
 * request to etcd3's own encoder instead: nothing is ever encoded differently.
 *
 * Two passes: the first sizes every nested message (in the order the second writes them), the second writes into
 * one buffer of exactly that size.
 */
export function encodeTxnRequest(request: ITxnRequest): Buffer | undefined {
  sizes.length = 0;
  const size = txnSize(request);
  if (size < 0) return undefined;
  const w = new WireWriter(size);
  next = 0;
  writeTxn(w, request);
  return w.buf;
}

/** Sizes of the nested messages of the request being encoded, in the order they are written; -1 aborts. */
const sizes: number[] = [];
let next = 0;
const halves: Halves = { lo: 0, hi: 0 };

/** A field this encoder leaves to etcd3's: any size it is added to stays negative. */
const UNSUPPORTED = Number.NEGATIVE_INFINITY;

// Tags: (field number << 3) | wire type (0 varint, 2 length-delimited).
const enum Tag {
  TxnCompare = (1 << 3) | 2,
  TxnSuccess = (2 << 3) | 2,
  TxnFailure = (3 << 3) | 2,
  OpRange = (1 << 3) | 2,
  OpPut = (2 << 3) | 2,
  OpDelete = (3 << 3) | 2,
  OpTxn = (4 << 3) | 2,
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** Size of a length-delimited field (tag of one byte) holding `length` bytes. */
function delimited(length: number): number {
  return 1 + uint32Length(length) + length;
}

/** Size of a bytes field, or UNSUPPORTED; 0 when absent. `tagBytes`: 1, or 2 for field numbers from 16. */
function bytesField(value: unknown, tagBytes = 1): number {
  if (value == null) return 0;
  if (!isBytes(value)) return UNSUPPORTED;
  return tagBytes + uint32Length(value.length) + value.length;
}

function int64Field(value: unknown): number {
  if (value == null) return 0;
  if (!int64Halves(value, halves)) return UNSUPPORTED;
  return 1 + varintLength(halves.lo, halves.hi);
}

function boolField(value: unknown): number {
  if (value == null) return 0;
  return typeof value === 'boolean' ? 2 : UNSUPPORTED;
}

/** An enum given by number (etcd3's enums are numeric); by name it goes to etcd3's encoder. */
function enumField(value: unknown): number {
  if (value == null) return 0;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? 1 + uint32Length(value) : UNSUPPORTED;
}

function txnSize(t: ITxnRequest): number {
  return listSize(t.compare, true) + listSize(t.success, false) + listSize(t.failure, false);
}

/** A repeated field of Compares or RequestOps: each item a length-delimited message, sized in writing order. */
function listSize(items: readonly (ICompare | IRequestOp)[] | null | undefined, compares: boolean): number {
  if (items == null) return 0;
  if (!Array.isArray(items)) return UNSUPPORTED;
  let total = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null || typeof item !== 'object') return UNSUPPORTED;
    const at = sizes.length;
    sizes.push(0);
    const size = compares ? compareSize(item as ICompare) : opSize(item as IRequestOp);
    if (size < 0) return UNSUPPORTED;
    sizes[at] = size;
    total += delimited(size);
  }
  return total;
}

/** A nested message field, sized in writing order; 0 when absent. */
function messageSize<T>(value: T | null | undefined, size: (value: T) => number): number {
  if (value == null) return 0;
  if (typeof value !== 'object') return UNSUPPORTED;
  const at = sizes.length;
  sizes.push(0);
  const inner = size(value);
  if (inner < 0) return UNSUPPORTED;
  sizes[at] = inner;
  return delimited(inner);
}

function compareSize(c: ICompare): number {
  return (
    enumField(c.result) +
    enumField(c.target) +
    bytesField(c.key) +
    int64Field(c.version) +
    int64Field(c.create_revision) +
    int64Field(c.mod_revision) +
    bytesField(c.value) +
    int64Field(c.lease) +
    bytesField(c.range_end, 2)
  );
}

/** A RequestOp: each member present is written (protobufjs writes each one its fromObject set). */
function opSize(op: IRequestOp): number {
  return messageSize(op.request_range, rangeSize) + messageSize(op.request_put, putSize) + messageSize(op.request_delete_range, deleteSize) + messageSize(op.request_txn, txnSize);
}

function putSize(p: IPutRequest): number {
  return bytesField(p.key) + bytesField(p.value) + int64Field(p.lease) + boolField(p.prev_kv) + boolField(p.ignore_value) + boolField(p.ignore_lease);
}

function rangeSize(r: IRangeRequest): number {
  return (
    bytesField(r.key) +
    bytesField(r.range_end) +
    int64Field(r.limit) +
    int64Field(r.revision) +
    enumField(r.sort_order) +
    enumField(r.sort_target) +
    boolField(r.serializable) +
    boolField(r.keys_only) +
    boolField(r.count_only) +
    int64Field(r.min_mod_revision) +
    int64Field(r.max_mod_revision) +
    int64Field(r.min_create_revision) +
    int64Field(r.max_create_revision)
  );
}

function deleteSize(d: IDeleteRangeRequest): number {
  return bytesField(d.key) + bytesField(d.range_end) + boolField(d.prev_kv);
}

// The write pass: the same fields in the same order; the size pass has checked every value.

function writeTxn(w: WireWriter, t: ITxnRequest): void {
  writeList(w, Tag.TxnCompare, t.compare, true);
  writeList(w, Tag.TxnSuccess, t.success, false);
  writeList(w, Tag.TxnFailure, t.failure, false);
}

function writeList(w: WireWriter, tag: number, items: readonly (ICompare | IRequestOp)[] | null | undefined, compares: boolean): void {
  if (items == null) return;
  for (let i = 0; i < items.length; i++) {
    w.uint32(tag);
    w.uint32(sizes[next++]!);
    if (compares) writeCompare(w, items[i] as ICompare);
    else writeOp(w, items[i] as IRequestOp);
  }
}

function writeCompare(w: WireWriter, c: ICompare): void {
  writeEnum(w, 1, c.result);
  writeEnum(w, 2, c.target);
  writeBytes(w, 3, c.key);
  writeInt64(w, 4, c.version);
  writeInt64(w, 5, c.create_revision);
  writeInt64(w, 6, c.mod_revision);
  writeBytes(w, 7, c.value);
  writeInt64(w, 8, c.lease);
  writeBytes(w, 64, c.range_end);
}

function writeOp(w: WireWriter, op: IRequestOp): void {
  writeMessage(w, Tag.OpRange, op.request_range, writeRange);
  writeMessage(w, Tag.OpPut, op.request_put, writePut);
  writeMessage(w, Tag.OpDelete, op.request_delete_range, writeDelete);
  writeMessage(w, Tag.OpTxn, op.request_txn, writeTxn);
}

/** A nested message field: its tag, the size the first pass found, its fields. */
function writeMessage<T>(w: WireWriter, tag: number, value: T | null | undefined, write: (w: WireWriter, value: T) => void): void {
  if (value == null) return;
  w.uint32(tag);
  w.uint32(sizes[next++]!);
  write(w, value);
}

function writeDelete(w: WireWriter, d: IDeleteRangeRequest): void {
  writeBytes(w, 1, d.key);
  writeBytes(w, 2, d.range_end);
  writeBool(w, 3, d.prev_kv);
}

function writePut(w: WireWriter, p: IPutRequest): void {
  writeBytes(w, 1, p.key);
  writeBytes(w, 2, p.value);
  writeInt64(w, 3, p.lease);
  writeBool(w, 4, p.prev_kv);
  writeBool(w, 5, p.ignore_value);
  writeBool(w, 6, p.ignore_lease);
}

function writeRange(w: WireWriter, r: IRangeRequest): void {
  writeBytes(w, 1, r.key);
  writeBytes(w, 2, r.range_end);
  writeInt64(w, 3, r.limit);
  writeInt64(w, 4, r.revision);
  writeEnum(w, 5, r.sort_order);
  writeEnum(w, 6, r.sort_target);
  writeBool(w, 7, r.serializable);
  writeBool(w, 8, r.keys_only);
  writeBool(w, 9, r.count_only);
  writeInt64(w, 10, r.min_mod_revision);
  writeInt64(w, 11, r.max_mod_revision);
  writeInt64(w, 12, r.min_create_revision);
  writeInt64(w, 13, r.max_create_revision);
}

function writeBytes(w: WireWriter, field: number, value: unknown): void {
  if (value == null) return;
  w.uint32((field << 3) | 2);
  w.bytes(value as Uint8Array);
}

function writeInt64(w: WireWriter, field: number, value: unknown): void {
  if (value == null) return;
  int64Halves(value, halves);
  w.uint32(field << 3);
  w.varint64(halves.lo, halves.hi);
}

function writeEnum(w: WireWriter, field: number, value: unknown): void {
  if (value == null) return;
  w.uint32(field << 3);
  w.uint32(value as number);
}

function writeBool(w: WireWriter, field: number, value: unknown): void {
  if (value == null) return;
  w.uint32(field << 3);
  w.uint32(value ? 1 : 0);
}
