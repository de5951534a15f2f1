import { GRPCResourceExhastedError } from 'etcd3';
import { ETCD_RPC_ERROR, etcdDescription } from './etcd-rpc-error.js';

/**
 * gRPC's message-size errors. gRPC reports a message over its receiver's limit with the status code
 * RESOURCE_EXHAUSTED — the client for a response (grpc-js: "Received message larger than max (N vs M)", 4 MiB by
 * default), the server for a request (grpc-go: "… larger than max (N vs. M)"). etcd uses the same code for exactly
 * two errors of its own, recognised by their fixed descriptions; every other RESOURCE_EXHAUSTED is a size limit.
 * So the class decides; the text is read only to name the two numbers, when they are there.
 */
export function isMessageSizeError(error: unknown): error is GRPCResourceExhastedError {
  if (!(error instanceof GRPCResourceExhastedError)) return false;
  const description = etcdDescription(error);
  return description !== ETCD_RPC_ERROR.tooManyRequests && description !== ETCD_RPC_ERROR.noSpace;
}

/** The message's size and the limit, in bytes, from gRPC's "(N vs M)" / "(N vs. M)"; undefined when absent. */
export function messageSizes(error: Error): { sizeBytes: number; limitBytes: number } | undefined {
  const match = /larger than max \((\d+) vs\.? (\d+)\)/.exec(etcdDescription(error) ?? error.message);
  return match === null ? undefined : { sizeBytes: Number(match[1]), limitBytes: Number(match[2]) };
}
