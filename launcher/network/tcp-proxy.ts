import { createServer, type Server } from 'node:net';
import { combineFaults, NO_FAULTS, type LinkFaults } from './link-faults.js';
import { ProxiedConnection, type SourceIdentifier } from './proxied-connection.js';
import { resetSocket } from './reset-socket.js';

export interface FaultProxyOptions {
  /** Port on 127.0.0.1 that connections are forwarded to. */
  readonly targetPort: number;
  /** Port to listen on; 0 lets the kernel pick a free one. @default 0 */
  readonly port?: number;
  /**
   * Tells senders apart by their first bytes, so faults can target one sender only
   * (see setSourceFaults). Without it every connection gets the proxy-wide faults.
   */
  readonly identifySource?: SourceIdentifier;
  /**
   * Clients speak plaintext HTTP/2 (gRPC without TLS): a cut then also holds back their cancellations
   * (see ProxiedConnection). @default false
   */
  readonly http2Clients?: boolean;
}

/**
 * An in-process TCP proxy on 127.0.0.1 that injects network faults (see LinkFaults).
 * In-process rather than iptables/tc so the tests need no privileges and work the same
 * for child processes and host-networked containers.
 */
export class FaultProxy {
  private faults: LinkFaults = NO_FAULTS;
  private readonly sourceFaults = new Map<string, LinkFaults>();
  private readonly connections = new Set<ProxiedConnection>();
  private closing: Promise<void> | undefined;
  /** Connections accepted and refused so far (tests check that a retry really dialled anew). */
  accepted = 0;
  refused = 0;
  /** Connections whose requests, held by a cut, were delivered after their client had gone. */
  lateDeliveries = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Starts listening on 127.0.0.1; resolves once connections are accepted. */
  static async listen(options: FaultProxyOptions): Promise<FaultProxy> {
    // allowHalfOpen: ProxiedConnection forwards each FIN itself, after the queued bytes.
    const server = createServer({ allowHalfOpen: true });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        const address = server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error(`proxy for port ${options.targetPort} has no TCP address`));
        } else {
          resolve(address.port);
        }
      });
    });
    const proxy = new FaultProxy(server, port);
    server.on('connection', (socket) => {
      // A cut link refuses new connections, so a client's retry fails fast and goes to another member.
      if (proxy.faults.cut) {
        proxy.refused += 1;
        socket.on('error', () => undefined);
        resetSocket(socket);
        return;
      }
      proxy.accepted += 1;
      const connection: ProxiedConnection = new ProxiedConnection(socket, {
        targetPort: options.targetPort,
        faultsFor: (source) => proxy.faultsFor(source),
        identifySource: options.identifySource,
        http2Client: options.http2Clients === true,
        onLateDelivery: () => (proxy.lateDeliveries += 1),
        onClosed: () => proxy.connections.delete(connection),
      });
      proxy.connections.add(connection);
    });
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Changes the faults for every connection, including the open ones (fields not given are kept). */
  setFaults(changes: Partial<LinkFaults>): void {
    this.faults = { ...this.faults, ...changes };
    this.updateConnections();
  }

  /** Changes the faults for connections from one identified sender (fields not given are kept), added to setFaults'. */
  setSourceFaults(source: string, changes: Partial<LinkFaults>): void {
    this.sourceFaults.set(source, { ...(this.sourceFaults.get(source) ?? NO_FAULTS), ...changes });
    this.updateConnections();
  }

  /** Closes the listener and resets every open connection; idempotent. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const connection of [...this.connections]) connection.reset();
    });
    return this.closing;
  }

  private faultsFor(source: string | undefined): LinkFaults {
    const fromSource = source === undefined ? undefined : this.sourceFaults.get(source);
    return fromSource === undefined ? this.faults : combineFaults(this.faults, fromSource);
  }

  private updateConnections(): void {
    for (const connection of [...this.connections]) connection.update();
  }
}
