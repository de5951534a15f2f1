import { CompareResult, CompareTarget, Etcd3, type ITxnRequest } from 'etcd3';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireTxn } from '../../operations/acquire.js';
import { nested } from '../../operations/etcd-txn.js';
import { keepLeaseTxn, moveLeaseTxn } from '../../operations/adopt-lease.js';
import { deleteRevisionTxn } from '../../operations/delete-revision.js';
import { readTxn } from '../../operations/read-lease.js';
import { releaseTxn } from '../../operations/release.js';
import { renewTxn } from '../../operations/renew.js';
import { transferTxn } from '../../operations/transfer.js';
import { quotaCounted } from '../../commit/space-alarm.js';
import { withTxnCodec } from './txn-codec.js';
import { decodeTxnResponse } from './txn-response-decoder.js';
import { encodeTxnRequest } from './txn-request-encoder.js';

/**
 * The codec against etcd3's own (proto-loader over protobufjs, from etcd3's rpc.proto): the same request bytes, the
 * same response objects. etcd3's functions are taken from a real client's KV service client (no connection is made).
 */
const etcd = new Etcd3({ hosts: '127.0.0.1:1' });
afterAll(() => etcd.close());
type Fn = ((...args: unknown[]) => unknown) & { requestSerialize: (v: unknown) => Buffer; responseDeserialize: (b: Buffer) => unknown };
const host = (etcd as unknown as { pool: { hosts: Array<{ getServiceClient(name: string): { txn: Fn; constructor: { service: { Txn: { responseSerialize: (v: unknown) => Buffer } } } } }> } }).pool.hosts[0]!;
const kv = host.getServiceClient('KV');
const etcd3Encode = kv.txn.requestSerialize;
const etcd3Decode = kv.txn.responseDeserialize;
const encodeResponse = kv.constructor.service.Txn.responseSerialize;

const key = Buffer.from('prefix/res\u0000thread-1', 'utf8');
const value = Buffer.from('mastra-thread-owner:{"runId":"run-000001"}');
const LEASE = '7587871234567890123';

const requests: Record<string, ITxnRequest> = {
  acquire: acquireTxn(key, value, LEASE),
  'renew, move': renewTxn(key, value, { revision: '41', lease: '7587871234567890000' }, LEASE, false),
  'renew, keep': renewTxn(key, value, { revision: '9007199254740993', lease: LEASE }, LEASE, true),
  transfer: transferTxn(key, value, '0', Buffer.from('to'), LEASE),
  release: releaseTxn(key, value, '123456789'),
  read: readTxn(key),
  'delete one revision': deleteRevisionTxn(key, '77'),
  'adopt, keep': keepLeaseTxn(key, value, '41', '12345'),
  'adopt, move': moveLeaseTxn(key, value, '41', LEASE),
  batch: quotaCounted({ compare: [], success: [nested(acquireTxn(key, value, LEASE)), nested(releaseTxn(key, value, '5'))], failure: [] }, Buffer.from('prefix/')),
  'every field': {
    compare: [
      { key, target: CompareTarget.Version, result: CompareResult.NotEqual, version: 3, range_end: Buffer.from('z') },
      { key: Buffer.alloc(0), target: CompareTarget.Lease, result: CompareResult.Less, lease: '-1' },
      { key, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 },
    ],
    success: [
      { request_range: { key, range_end: Buffer.from([0]), limit: 500, revision: '99', sort_order: 1, sort_target: 3, serializable: true, keys_only: true, count_only: false, min_mod_revision: 1, max_mod_revision: '2', min_create_revision: 3, max_create_revision: '4' } },
      { request_put: { key, value: Buffer.alloc(0), lease: 0, prev_kv: true, ignore_value: false, ignore_lease: false } },
      { request_delete_range: { key, range_end: Buffer.from('prefix0'), prev_kv: true } },
      { request_txn: { compare: [], success: [], failure: [] } },
    ],
    failure: [{}],
  },
  empty: {},
  'large value': { success: [{ request_put: { key, value: Buffer.alloc(300_000, 7) } }] },
};

describe('Txn request encoder', () => {
  it.each(Object.entries(requests))('%s: the bytes etcd3 sends for the same object', (_, request) => {
    expect(encodeTxnRequest(request)!.equals(etcd3Encode(request))).toBe(true);
  });

  it('leaves to etcd3 what it would convert otherwise: bytes as strings (base64), enums by name, non-integer or Long int64s, non-array lists', () => {
    const cases: unknown[] = [
      { compare: [{ key: 'aGk=', target: 3, result: 0, value: 'aGk=' }] },
      { compare: [{ key, target: 'Value', result: 'Equal', value }] },
      { success: [{ request_put: { key, lease: 1.5 } }] },
      { success: [{ request_put: { key, lease: { low: 1, high: 0, unsigned: false } } }] },
      { success: [{ request_put: { key, lease: '12abc' } }] },
      { success: { 0: { request_put: { key } } } },
      { success: [{ request_put: { key, prev_kv: 1 } }] },
    ];
    for (const request of cases) expect(encodeTxnRequest(request as ITxnRequest)).toBeUndefined();
  });
});

const kvOf = (extra: Record<string, unknown> = {}) => ({ key, create_revision: '7', mod_revision: '41', version: '2', value, lease: LEASE, ...extra });
const responses: Record<string, unknown> = {
  'a batch of sub-transactions': {
    header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '9007199254740993', raft_term: '2' },
    succeeded: true,
    responses: [
      { response_txn: { header: {}, succeeded: true, responses: [{ response_put: { header: {} } }] } },
      { response_txn: { header: {}, succeeded: false, responses: [{ response_range: { header: {}, kvs: [kvOf()], count: '1' } }] } },
      { response_txn: { header: {}, succeeded: false, responses: [{ response_range: { header: {}, kvs: [], count: '0' } }] } },
    ],
  },
  'every field': {
    header: { revision: '-5' },
    responses: [
      {},
      { response_range: { kvs: [kvOf({ lease: '0', value: Buffer.alloc(0) }), {}], more: true, count: '12345678901234' } },
      { response_put: { header: { revision: '3' }, prev_kv: kvOf() } },
      { response_delete_range: { deleted: '2', prev_kvs: [kvOf(), kvOf({ version: '1' })] } },
      { response_txn: {} },
    ],
  },
  empty: {},
};

/** A small seeded generator (mulberry32): the same requests every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('Txn request encoder on generated requests', () => {
  const next = rng(26);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const int64s = ['0', '1', '127', '128', '16383', '16384', '4294967295', '4294967296', '9007199254740991', '9007199254740993', '9223372036854775807', '-1', '-9223372036854775808', 0, 1, 300, 2 ** 40];
  const bytes = () => Buffer.from(Array.from({ length: Math.floor(next() * 300) }, () => Math.floor(next() * 256)));
  const maybe = <T>(v: () => T) => (next() < 0.5 ? v() : undefined);
  const op = (depth: number): Record<string, unknown> =>
    pick([
      () => ({ request_put: { key: bytes(), value: maybe(bytes), lease: maybe(() => pick(int64s)), ignore_lease: maybe(() => next() < 0.5), prev_kv: maybe(() => next() < 0.5) } }),
      () => ({ request_range: { key: bytes(), range_end: maybe(bytes), limit: maybe(() => pick(int64s)), revision: maybe(() => pick(int64s)), count_only: maybe(() => next() < 0.5) } }),
      () => ({ request_delete_range: { key: bytes(), range_end: maybe(bytes), prev_kv: maybe(() => next() < 0.5) } }),
      () => (depth < 3 ? { request_txn: txn(depth + 1) } : {}),
    ])();
  const compare = () => ({
    key: bytes(),
    target: Math.floor(next() * 5),
    result: Math.floor(next() * 4),
    ...pick([{ version: pick(int64s) }, { create_revision: pick(int64s) }, { mod_revision: pick(int64s) }, { value: bytes() }, { lease: pick(int64s) }, {}]),
    range_end: maybe(bytes),
  });
  const txn = (depth: number): ITxnRequest =>
    ({
      compare: Array.from({ length: Math.floor(next() * 3) }, compare),
      success: Array.from({ length: Math.floor(next() * 4) }, () => op(depth)),
      failure: maybe(() => Array.from({ length: Math.floor(next() * 3) }, () => op(depth))),
    }) as ITxnRequest;

  it('500 random requests, nested up to three deep: the same bytes as etcd3', () => {
    for (let i = 0; i < 500; i++) {
      const request = txn(0);
      expect(encodeTxnRequest(request)!.equals(etcd3Encode(request)), JSON.stringify(request)).toBe(true);
    }
  });
});

describe('Txn response decoder', () => {
  it.each(Object.entries(responses))('%s: the object etcd3 hands back for the same bytes', (_, response) => {
    const bytes = encodeResponse(response);
    const ours = decodeTxnResponse(bytes);
    const theirs = etcd3Decode(bytes);
    expect(ours).toEqual(theirs);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs)); // the same fields in the same order
  });

  it('500 random responses, nested up to three deep: the same objects as etcd3', () => {
    const next = rng(62);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const int64s = ['0', '1', '128', '4294967296', '9007199254740993', '9223372036854775807', '-1'];
    const uint64s = ['0', '1', '18446744073709551615', '9223372036854775808', '42'];
    const maybe = <T>(v: () => T) => (next() < 0.5 ? v() : undefined);
    const bytes = () => Buffer.from(Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256)));
    const header = () => maybe(() => ({ cluster_id: pick(uint64s), member_id: maybe(() => pick(uint64s)), revision: pick(int64s), raft_term: maybe(() => pick(uint64s)) }));
    const kvs = () => Array.from({ length: Math.floor(next() * 3) }, () => ({ key: bytes(), create_revision: pick(int64s), mod_revision: maybe(() => pick(int64s)), version: pick(int64s), value: maybe(bytes), lease: pick(int64s) }));
    const responseOp = (depth: number): Record<string, unknown> =>
      pick([
        () => ({ response_range: { header: header(), kvs: kvs(), more: maybe(() => next() < 0.5), count: pick(int64s) } }),
        () => ({ response_put: { header: header(), prev_kv: maybe(() => kvs()[0]) } }),
        () => ({ response_delete_range: { header: header(), deleted: pick(int64s), prev_kvs: kvs() } }),
        () => (depth < 3 ? { response_txn: response(depth + 1) } : {}),
      ])();
    const response = (depth: number) => ({ header: header(), succeeded: next() < 0.5, responses: Array.from({ length: Math.floor(next() * 4) }, () => responseOp(depth)) });
    for (let i = 0; i < 500; i++) {
      const bytesOf = encodeResponse(response(0));
      expect(JSON.stringify(decodeTxnResponse(bytesOf))).toBe(JSON.stringify(etcd3Decode(bytesOf)));
    }
  });

  it('skips fields it does not know, and refuses truncated input (etcd3 then decodes it)', () => {
    const known = encodeResponse(responses['a batch of sub-transactions']);
    const unknownField = Buffer.concat([known, Buffer.from([0x78, 0x05, 0x82, 0x01, 0x02, 0x61, 0x62])]); // field 15 varint, field 16 bytes
    expect(decodeTxnResponse(unknownField)).toEqual(etcd3Decode(unknownField));
    expect(() => decodeTxnResponse(known.subarray(0, known.length - 3))).toThrow(RangeError);
  });
});

describe('installed on a client', () => {
  it('its KV service clients send Txn through the codec; a client without etcd3\u2019s internals is left as it is', () => {
    const client = withTxnCodec(new Etcd3({ hosts: ['127.0.0.1:1', '127.0.0.1:2'] }));
    try {
      const hosts = (client as unknown as { pool: { hosts: Array<{ getServiceClient(name: string): { txn: unknown; range: unknown } }> } }).pool.hosts;
      const service = hosts[1]!.getServiceClient('KV');
      expect(service.txn).not.toBe(Object.getPrototypeOf(service).txn);
      expect(service.range).toBe(Object.getPrototypeOf(service).range);
      expect(hosts[1]!.getServiceClient('KV')).toBe(service);
      const odd = { pool: {} } as unknown as Etcd3;
      expect(withTxnCodec(odd)).toBe(odd);
    } finally {
      client.close();
    }
  });
});
