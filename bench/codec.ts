/**
 * Client CPU of the Txn codec per sub-transaction of a full batch (126 renewals or acquires, as the group committer
 * sends them at load): etcd3's dynamic protobuf conversion against the provider's own codec (src/transport/wire/).
 * No cluster, no lock needed; CPU moves with the machine's load, so compare the two rows of one run.
 *
 *   node --import tsx bench/codec.ts
 */
import { Etcd3, type ITxnRequest } from 'etcd3';
import { acquireTxn } from '../src/operations/acquire.js';
import { renewTxn } from '../src/operations/renew.js';
import { nested } from '../src/operations/etcd-txn.js';
import { encodeTxnRequest } from '../src/transport/wire/txn-request-encoder.js';
import { decodeTxnResponse } from '../src/transport/wire/txn-response-decoder.js';
const etcd = new Etcd3({ hosts: '127.0.0.1:1' });
// etcd3's own functions, from a real client's KV service client (no connection is made).
const kv = (etcd as unknown as { pool: { hosts: Array<{ getServiceClient(name: string): any }> } }).pool.hosts[0]!.getServiceClient('KV');
const enc = kv.txn.requestSerialize, dec = kv.txn.responseDeserialize, encResp = kv.constructor.service.Txn.responseSerialize;
const value = Buffer.from('mastra-thread-owner:{"runId":"run-000001-5f0c1e2a9b7d","pid":12345,"host":"bench-host"}');
const L = '7587871234567890123';
const batch = (shape: (i: number) => ITxnRequest) => ({ compare: [], success: Array.from({ length: 126 }, (_, i) => nested(shape(i))), failure: [{ request_put: { key: Buffer.from('p/') } }] });
const acq = batch((i) => acquireTxn(Buffer.from(`prefix/resource\u0000thread-${i}`), value, L));
const ren = batch((i) => renewTxn(Buffer.from(`prefix/resource\u0000thread-${i}`), value, { revision: String(100000 + i), lease: '7587871234567890000' }, L, false));
const resp = encResp({ header: { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '123456', raft_term: '2' }, succeeded: true, responses: Array.from({ length: 126 }, () => ({ response_txn: { header: {}, succeeded: true, responses: [{ response_put: { header: {} } }] } })) });
function time(label: string, fn: () => unknown, n = 2000) {
  for (let i = 0; i < 200; i++) fn();
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const c = process.cpuUsage(t);
  console.log(label.padEnd(34), ((c.user + c.system) / n / 126).toFixed(2), 'µs per sub-txn');
}
time('etcd3 encode, acquire batch', () => enc(acq));
time('own encode, acquire batch', () => encodeTxnRequest(acq));
time('etcd3 encode, renew batch', () => enc(ren));
time('own encode, renew batch', () => encodeTxnRequest(ren));
time('etcd3 decode, 126 answers', () => dec(resp));
time('own decode, 126 answers', () => decodeTxnResponse(resp));
etcd.close();
