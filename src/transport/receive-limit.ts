import type { Etcd3 } from 'etcd3';
import { POLICY } from '../policy.js';

/** gRPC's default receive limit: what a client built elsewhere (the `client` option) is taken to accept. */
export const GRPC_DEFAULT_RECEIVE_BYTES = 4 * 1024 * 1024;

/** Channel options of the package's own etcd clients: they accept what etcd can send. */
export const RAISED_RECEIVE_LIMIT = { 'grpc.max_receive_message_length': POLICY.maxReceiveMessageBytes } as const;

/** Clients built with RAISED_RECEIVE_LIMIT. A caller's client keeps whatever it was built with, unknown here. */
const raised = new WeakSet<Etcd3>();

/** Marks `client` as built with RAISED_RECEIVE_LIMIT; returns it. */
export function withRaisedReceiveLimit(client: Etcd3): Etcd3 {
  raised.add(client);
  return client;
}

/** The largest response `client` is known to accept: readers size their pages by it. */
export function receiveLimitOf(client: Etcd3): number {
  return raised.has(client) ? POLICY.maxReceiveMessageBytes : GRPC_DEFAULT_RECEIVE_BYTES;
}
