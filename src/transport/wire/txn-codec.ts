import type { Etcd3 } from 'etcd3';
import { decodeTxnResponse } from './txn-response-decoder.js';
import { encodeTxnRequest } from './txn-request-encoder.js';

const TXN_PATH = '/etcdserverpb.KV/Txn';

/** What etcd3 reaches of a host: its cached gRPC service clients. */
interface HostLike {
  getServiceClient(name: string): unknown;
}

/** A grpc-js service client, as far as the Txn method goes. */
interface KvServiceClient {
  txn?: ((...args: unknown[]) => unknown) & { path?: string; requestSerialize?: (value: unknown) => Buffer; responseDeserialize?: (bytes: Buffer) => unknown };
  makeUnaryRequest?: (path: string, serialize: (value: unknown) => Buffer, deserialize: (bytes: Buffer) => unknown, ...rest: unknown[]) => unknown;
}

const installed = new WeakSet<object>();

/**
 * Makes `client` send its Txn calls through the provider's own codec (txn-request-encoder.ts, txn-response-decoder.ts)
 * instead of etcd3's dynamic protobuf conversion, and returns it. Everything else stays etcd3's: its connections,
 * authentication, per-host policies (MemberGate), retries of nothing, and `client.kv.txn` itself — the codec sits
 * below it, in the KV service client of each host, where grpc-js takes a method's serializer per call
 * (`makeUnaryRequest`). Anything the codec does not take as etcd3 would is encoded or decoded by etcd3's own
 * functions, so the bytes on the wire and the objects handed back are the same either way (txn-codec.test.ts).
 *
 * If etcd3's internals are not as expected (another version), the client is left as it is.
 */
export function withTxnCodec(client: Etcd3): Etcd3 {
  const hosts = (client as unknown as { pool?: { hosts?: unknown } }).pool?.hosts;
  if (!Array.isArray(hosts) || !hosts.every((h: unknown) => typeof (h as HostLike | undefined)?.getServiceClient === 'function')) return client;
  for (const host of hosts as HostLike[]) {
    const get = host.getServiceClient.bind(host);
    // A host makes its service clients lazily and anew after a connection failure (resetAllServices).
    host.getServiceClient = (name: string) => {
      const service = get(name);
      if (name === 'KV' && typeof service === 'object' && service !== null && !installed.has(service)) install(service as KvServiceClient);
      return service;
    };
  }
  return client;
}

function install(service: KvServiceClient): void {
  installed.add(service as object);
  const original = service.txn;
  const serialize = original?.requestSerialize;
  const deserialize = original?.responseDeserialize;
  const makeUnaryRequest = service.makeUnaryRequest;
  if (original?.path !== TXN_PATH || typeof serialize !== 'function' || typeof deserialize !== 'function' || typeof makeUnaryRequest !== 'function') return;
  const encode = (request: unknown): Buffer => {
    let encoded: Buffer | undefined;
    try {
      encoded = encodeTxnRequest(request as Parameters<typeof encodeTxnRequest>[0]);
    } catch {
      encoded = undefined;
    }
    return encoded ?? serialize(request);
  };
  const decode = (bytes: Buffer): unknown => {
    try {
      return decodeTxnResponse(bytes);
    } catch {
      return deserialize(bytes);
    }
  };
  service.txn = (...args: unknown[]) => makeUnaryRequest.call(service, TXN_PATH, encode, decode, ...args);
}
