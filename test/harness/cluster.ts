/**
 * The test cluster contract: a real multi-member etcd cluster on 127.0.0.1 with a fault proxy
 * in front of every member, so tests can kill, pause and partition members. Two drivers run
 * the members (child processes or containers); everything else is shared.
 *
 * Environment:
 *   ETCD_TEST_DRIVER  'process' (default) or 'container'
 *   ETCD_BIN          etcd binary for the process driver (default: etcd from PATH)
 *   ETCD_TEST_IMAGE   image for the container driver (default etcd-lease-provider/etcd:local);
 *                     prepare with test/harness/ensure-docker.sh and build-etcd-image.sh
 */

export type ClusterDriverName = 'process' | 'container';

export interface ClusterOptions {
  /** Number of members. @default 3 */
  size?: number;
  /** How members run. @default process.env.ETCD_TEST_DRIVER ?? 'process' */
  driver?: ClusterDriverName;
  /** Extra etcd flags for every member, e.g. ['--max-txn-ops=16']. Appended last, so they win. */
  extraArgs?: string[];
  /** etcd --election-timeout. @default etcd's own, 1000 ms */
  electionTimeoutMs?: number;
  /** etcd --heartbeat-interval. @default etcd's own, 100 ms */
  heartbeatMs?: number;
  /**
   * Serve client URLs over TLS (peers stay plaintext): members listen on https, `endpoints()` are
   * `https://127.0.0.1:PORT`, and the harness's own probes trust `ca`. @default plaintext
   */
  tls?: ClusterTls;
}

/** PEM file paths for a TLS cluster. */
export interface ClusterTls {
  /** CA that signed `cert`; with `clientCertAuth` also the CA client certificates must chain to (--trusted-ca-file). */
  ca: string;
  /**
   * Every member's certificate (--cert-file) and key (--key-file). It needs a SAN for 127.0.0.1, and
   * with `clientCertAuth` also the clientAuth usage: the harness's probes present it as their client
   * certificate, as etcd 3.4's own gRPC gateway does.
   */
  cert: string;
  key: string;
  /** --client-cert-auth: members refuse clients without a certificate signed by `ca`. @default false */
  clientCertAuth?: boolean;
}

export interface TestCluster {
  readonly size: number;
  /**
   * client endpoints as 'http://127.0.0.1:PORT' ('https://…' with `tls`) — these go through per-member
   * TCP fault proxies, which pass TLS through untouched
   */
  endpoints(): string[];
  /** endpoint of member i only */
  endpoint(i: number): string;
  /**
   * Index of the current leader, asking the members directly (bypassing the proxies). Waits
   * until a quorum names the same leader and that member confirms it, or rejects after
   * timeoutMs (default 15 s).
   */
  leader(timeoutMs?: number): Promise<number>;
  /** SIGKILL (container: docker kill); resolves once the member is gone and its ports are free. */
  kill(i: number): Promise<void>;
  /** Starts a killed member again with the same data dir and ports; waits until it serves. */
  restart(i: number): Promise<void>;
  /** SIGSTOP (container: docker pause). */
  pause(i: number): Promise<void>;
  /** SIGCONT (container: docker unpause). */
  resume(i: number): Promise<void>;
  /**
   * Member i's client and peer traffic stalls silently in both directions: connections stay
   * open, bytes are held (and delivered after heal, like TCP retransmission would).
   */
  blackhole(i: number): Promise<void>;
  /** Clears every network fault of member i: blackhole, latency and dropped responses. */
  heal(i: number): Promise<void>;
  /** Added one-way delay on member i's client and peer traffic; 0 removes it. */
  setLatency(i: number, ms: number): Promise<void>;
  /**
   * Client proxy of member i only: drop responses (server->client bytes) so a request commits
   * but the reply never arrives. Turning it off resets the affected client connections.
   */
  dropResponses(i: number, on: boolean): Promise<void>;
  /** Resolves when every member reports healthy (default timeout 30 s). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Kills everything, removes temp dirs, closes proxies; idempotent. */
  stop(): Promise<void>;
}

/** Starts a cluster with the driver from options, else ETCD_TEST_DRIVER, else 'process'. */
export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const driver = options.driver ?? driverFromEnvironment();
  // Imported lazily so that process-driver runs never load testcontainers and its docker client.
  switch (driver) {
    case 'process': {
      const { startProcessCluster } = await import('./process-cluster.js');
      return startProcessCluster(options);
    }
    case 'container': {
      const { startContainerCluster } = await import('./container-cluster.js');
      return startContainerCluster(options);
    }
    default:
      throw new Error(`options.driver must be 'process' or 'container', got '${String(driver)}'`);
  }
}

function driverFromEnvironment(): ClusterDriverName {
  const value = process.env.ETCD_TEST_DRIVER;
  if (value === undefined || value === '') return 'process';
  if (value === 'process' || value === 'container') return value;
  throw new Error(`ETCD_TEST_DRIVER must be 'process' or 'container', got '${value}'`);
}
