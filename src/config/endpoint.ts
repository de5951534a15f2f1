/** One etcd endpoint as gRPC dials it: host and port, with or without `http(s)://`. */
export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** As the user wrote it, for messages. */
  readonly text: string;
}

/**
 * Parses an etcd3 host string (`https://10.0.0.1:2379`, `etcd-0:2379`, `[::1]:2379`); undefined if it cannot
 * be dialled as host and port. Shared by option checking (config) and the TLS probe (transport), so both
 * agree on what an endpoint is.
 */
export function parseEndpoint(text: string): Endpoint | undefined {
  const bare = text.replace(/^https?:\/\//, '');
  // A host name or address has no spaces, no user info and no path: `not a host` could only fail in DNS, retried
  // until the deadline, where it can be refused at once as a setting.
  const match = /^\[([0-9A-Fa-f:.]+)\](?::(\d+))?$/.exec(bare) ?? /^([^\s:/[\]@?#%\\,]+)(?::(\d+))?$/.exec(bare);
  if (!match) return undefined;
  // gRPC's default port when none is given.
  const port = match[2] === undefined ? 443 : Number(match[2]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  return { host: match[1]!, port, text };
}
