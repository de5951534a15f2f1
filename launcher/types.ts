/**
 * What the launcher's parts share: the options a caller passes, the cluster it gets back, and what a member
 * reports. Types only, on the ground floor, so the drivers, the launch and the entry point (cluster.ts) all
 * point down to them and never at each other.
 */

export type ClusterDriverName = 'process' | 'container';

/** What a member is doing, as far as the cluster knows; a member that exited by itself counts as killed. */
export type MemberState = 'running' | 'paused' | 'killed';

export interface ClusterOptions {
  /** Number of members. @default 3 */
  size?: number;
  /**
   * How members run: `etcd` child processes (ETCD_BIN, else `etcd` from PATH), or containers of ETCD_IMAGE
   * (needs the devDependency `testcontainers` and a Docker engine). @default ETCD_DRIVER, else the first
   * that can run here, in that order (see `chooseLauncher`)
   */
  driver?: ClusterDriverName;
  /**
   * Put a fault proxy in front of every member (see `FaultableCluster`). Off, clients and peers reach the
   * members directly, so nothing but etcd sits in a measured path. @default false
   */
  faultProxies?: boolean;
  /**
   * Who answers SIGINT/SIGTERM. `'caller'`: process members run in their own process group, so a Ctrl-C in
   * the terminal reaches only the caller, which tears down in its own order (the demo lets its workers release
   * first). `'cluster'`: members share the caller's group, and those signals kill them (and remove the temp
   * dir) before the process dies of the signal — for callers with no teardown of their own, like a test run.
   * Either way an exit hook kills what `stop()` did not. @default 'caller'
   */
  signals?: 'caller' | 'cluster';
  /** Names the temp dir and the cluster token, so a leftover dir tells who made it. @default 'etcd-cluster' */
  label?: string;
  /** Extra etcd flags for every member, e.g. ['--max-txn-ops=16']. Appended last, so they win. */
  extraArgs?: string[];
  /** etcd --election-timeout. @default etcd's own, 1000 ms */
  electionTimeoutMs?: number;
  /** etcd --heartbeat-interval. @default etcd's own, 100 ms */
  heartbeatMs?: number;
  /**
   * Serve client URLs over TLS (peers stay plaintext): members listen on https, `endpoints()` are
   * `https://127.0.0.1:PORT`, and the cluster's own probes trust `ca`. @default plaintext
   */
  tls?: ClusterTls;
}

/** PEM file paths for a TLS cluster. */
export interface ClusterTls {
  /** CA that signed `cert`; with `clientCertAuth` also the CA client certificates must chain to (--trusted-ca-file). */
  ca: string;
  /**
   * Every member's certificate (--cert-file) and key (--key-file). It needs a SAN for 127.0.0.1, and
   * with `clientCertAuth` also the clientAuth usage: the cluster's probes present it as their client
   * certificate, as etcd 3.4's own gRPC gateway does.
   */
  cert: string;
  key: string;
  /** --client-cert-auth: members refuse clients without a certificate signed by `ca`. @default false */
  clientCertAuth?: boolean;
}

export interface ClusterMember {
  readonly index: number;
  /** etcd --name, `m0`, `m1`, … */
  readonly name: string;
  readonly state: MemberState;
}

export interface EtcdCluster {
  readonly size: number;
  /** client endpoints as 'http://127.0.0.1:PORT' ('https://…' with `tls`); the proxies' with `faultProxies` */
  endpoints(): string[];
  /** endpoint of member i only */
  endpoint(i: number): string;
  members(): ClusterMember[];
  /**
   * Index of the current leader, asking the members directly (never through a proxy). Waits until a
   * quorum names the same leader and that member confirms it — just after a kill two members can briefly
   * believe in different leaders — or rejects after timeoutMs (default 15 s).
   */
  leader(timeoutMs?: number): Promise<number>;
  /**
   * Whether member i itself, asked on its own port (never through a proxy), follows or is a leader; false while
   * it knows none (a follower that stopped hearing the leader), undefined when it does not answer.
   */
  knowsLeader(i: number): Promise<boolean | undefined>;
  /**
   * Hands leadership to member i (etcd's MoveLeader, asked of the leader on its own port) and resolves once a quorum
   * names i; at once when i already leads. For scenarios that need the leader where their fault is: the provider sends
   * its attempts to the leader.
   */
  moveLeader(i: number, timeoutMs?: number): Promise<void>;
  /** SIGKILL (container: docker kill); resolves once the member is gone and its ports are free. */
  kill(i: number): Promise<void>;
  /** Starts a killed member again with the same data dir and ports; waits until it serves. */
  restart(i: number): Promise<void>;
  /** SIGSTOP (container: docker pause). */
  pause(i: number): Promise<void>;
  /** SIGCONT (container: docker unpause). */
  resume(i: number): Promise<void>;
  /** Resolves when every member reports healthy (default timeout 30 s). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Kills everything, removes temp dirs, closes proxies; idempotent. */
  stop(): Promise<void>;
}

/** A cluster started with `faultProxies: true`. */
export interface FaultableCluster extends EtcdCluster {
  /**
   * Member i's client and peer traffic stalls silently in both directions: connections stay
   * open, bytes are held (and delivered after heal, like TCP retransmission would).
   */
  blackhole(i: number): Promise<void>;
  /**
   * Member i's client link is cut and what was sent into it arrives late: bytes of open client
   * connections are held both ways and delivered on heal — requests even when their client has
   * closed or reset its side since, so an attempt its caller gave up on still reaches etcd. New client
   * connections are refused, so a retry fails fast and goes to another member. A client that cancels a
   * held request has its connection reset (and the cancellation is never delivered: the request lands for
   * sure). Peers are untouched: the member stays in the cluster. Plaintext clusters only read the
   * cancellations; over TLS the held bytes, cancellations included, are delivered as they are.
   */
  cutClient(i: number): Promise<void>;
  /**
   * Member i loses its peers (its raft traffic is held both ways) while its clients stay attached:
   * isolating the leader makes it step down and the others elect a new one, while its clients' requests
   * still reach it.
   */
  isolate(i: number): Promise<void>;
  /** Raft messages from member `from` to member `to` are held (delivered on heal); the other way flows. */
  holdOneWay(from: number, to: number): Promise<void>;
  /** Clears every network fault of member i, and every one-way hold it is part of. */
  heal(i: number): Promise<void>;
  /** Clears every network fault of every member. */
  healAll(): Promise<void>;
  /**
   * Added one-way delay on member i's client and peer traffic, plus a random 0..jitterMs per chunk
   * (bytes stay in order); 0 removes it.
   */
  setLatency(i: number, ms: number, jitterMs?: number): Promise<void>;
  /**
   * Delay on member i's client link only (added to setLatency's), plus a random 0..jitterMs per chunk: requests
   * reach it late — after their caller's attempt timed out and a retry answered — while its raft traffic keeps
   * time, so it stays a healthy member. 0 removes it.
   */
  setClientLatency(i: number, ms: number, jitterMs?: number): Promise<void>;
  /**
   * Client proxy of member i only: drop responses (server->client bytes) so a request commits
   * but the reply never arrives. Turning it off resets the affected client connections.
   */
  dropResponses(i: number, on: boolean): Promise<void>;
  /**
   * Client connections member i's proxy has accepted and refused so far, and how many of them had requests
   * held by a cut delivered after their client had gone.
   */
  clientConnections(i: number): { accepted: number; refused: number; lateDeliveries: number };
  /** Member i's own view (member id, leader id, raft term), asked directly; undefined if it does not answer. */
  status(i: number): Promise<MemberStatus | undefined>;
}

/** Member i's own view, asked on its own client port (see member-probe.ts). */
export interface MemberStatus {
  /** uint64 IDs as the decimal strings the gateway's JSON uses: compare, never do maths. */
  readonly memberId: string;
  /** "0" while the member knows no leader. */
  readonly leaderId: string;
  readonly raftTerm: number;
}
