import { noop } from 'cockatiel';
import { Etcd3, isRecoverableError, type IOptions } from 'etcd3';
import { redactAuth, redactCredentials } from '../config/redact.js';
import { DEFAULTS } from '../config/resolve-options.js';
import { checkTlsMaterial } from '../config/tls-material.js';
import type { CircuitState } from '../config/events.js';
import type { EtcdLeaseProviderOptions } from '../config/options.js';
import { EndpointFailures } from './endpoint-failures.js';
import { isMessageSizeError } from './message-size.js';
import { LeaderFinder } from './leader-finder.js';
import { MemberClients } from './member-clients.js';
import { MemberGate } from './member-gate.js';
import { MemberHealth } from './member-health.js';
import { MemberProbes } from './member-probes.js';
import { POLICY } from '../policy.js';
import { RAISED_RECEIVE_LIMIT, withRaisedReceiveLimit } from './receive-limit.js';
import { TlsDiagnosis, usesTls } from './tls-diagnosis.js';
import { withTxnCodec } from './wire/txn-codec.js';

/**
 * Builds the etcd3 client the provider owns.
 *
 * etcd3's default global policy re-sends any "recoverable" failure three times at once — writes
 * included, even when the failure is ambiguous. We replace it with a policy that runs each call once
 * (CallRunner retries, where every resend is an idempotent operation under one deadline) and that
 * turns a connection failure caused by TLS setup into a non-retryable error (see TlsDiagnosis).
 * Which member each request goes to is MemberHealth's choice, enforced through etcd3's per-host policy slot
 * (MemberGate): members that answer take the attempts, a member that failed waits for its own probe
 * (MemberProbes), among members that all answer the leader goes first (LeaderFinder), and the client's close()
 * closes the probes' and the finder's connections too. What each host last failed with
 * is kept (EndpointFailures) for the error a call that gives up reports. Txn calls are encoded and decoded by the
 * provider's own codec (wire/txn-codec.ts): etcd3's dynamic protobuf conversion was most of a batch's client CPU.
 */
export function createEtcdClient(
  options: EtcdLeaseProviderOptions,
  hosts: string[],
  attemptTimeoutMs: number,
  onCircuit?: (endpoint: string, state: CircuitState) => void,
  currentTimeoutMs: () => number = () => attemptTimeoutMs,
): Etcd3 {
  const credentials = options.credentials;
  if (credentials !== undefined) checkCredentials(credentials);
  const failures = new EndpointFailures(usesTls(hosts, credentials));
  const diagnosis = new TlsDiagnosis(hosts, credentials, attemptTimeoutMs, failures);
  const connection = {
    // The caller's objects, made to redact themselves when logged (non-enumerable hooks; fields unchanged).
    auth: redactAuth(options.auth),
    credentials: redactCredentials(credentials),
    dialTimeout: attemptTimeoutMs,
    // Watch catch-ups and pages of large values come in responses over gRPC's default 4 MiB (receive-limit.ts).
    grpcOptions: RAISED_RECEIVE_LIMIT,
    // etcd3 exchanges the password for a token before the first call (and again when the token
    // expires), outside any call's deadline: without one of its own, one hung member would hold every
    // call of this client behind that exchange. Every other call carries CallRunner's deadline.
    defaultCallOptions: (context) =>
      context.service === 'Auth' && context.method === 'authenticate' ? { deadline: Date.now() + attemptTimeoutMs } : {},
  } satisfies Omit<IOptions, 'hosts'>;
  const health = new MemberHealth(
    hosts,
    // Judged against the attempt timeout as it is now, not its floor: a cluster slower than the floor would otherwise
    // have every member silent and every probe time out, and a member marked failed never probed back.
    { silentAfterMs: () => currentTimeoutMs() * POLICY.health.silentAfterShare, probeEveryMs: POLICY.health.probeEveryMs },
    onCircuit,
  );
  const members = new MemberClients((endpoint) => new Etcd3({ ...connection, hosts: [endpoint], faultHandling: { host: () => noop, global: noop } }));
  const probes = new MemberProbes({
    health,
    clients: members,
    key: Buffer.from(options.prefix ?? DEFAULTS.prefix),
    timeoutMs: currentTimeoutMs,
    failures,
    countsAsFailure: isMemberFailure,
  });
  const leader = new LeaderFinder({ health, clients: members, timeoutMs: currentTimeoutMs, everyMs: POLICY.health.leaderSearchEveryMs, countsAsFailure: isMemberFailure });
  const gates = hosts.map((endpoint, i) => new MemberGate(i, endpoint, { health, probes, failures, leader, countsAsFailure: isMemberFailure }));
  const unclaimed = [...gates];
  const client = new ProbingEtcd3(
    {
      ...connection,
      hosts,
      faultHandling: {
        global: failures.policy(diagnosis.policy()),
        // etcd3 asks once per host, in the order of `hosts`.
        host: (endpoint) => {
          const at = unclaimed.findIndex((gate) => gate.endpoint === endpoint);
          if (at < 0) throw new Error(`etcd3 asked for a policy of an unknown host: ${endpoint}`);
          return unclaimed.splice(at, 1)[0]!;
        },
      },
    },
    members,
  );
  return withRaisedReceiveLimit(withTxnCodec(client));
}

/** What a member's circuit counts: a transient failure. A message over a size limit is no sign of a sick member (etcd3 marks it recoverable all the same). */
function isMemberFailure(error: unknown): boolean {
  return error instanceof Error && isRecoverableError(error) && !isMessageSizeError(error);
}

/** The provider's etcd3 client: closing it also closes the connections its member probes and leader finder opened. */
class ProbingEtcd3 extends Etcd3 {
  constructor(
    options: IOptions,
    private readonly members: MemberClients,
  ) {
    super(options);
  }

  override close(): void {
    this.members.close();
    super.close();
  }
}

/** Fails at construction, with the option named, on TLS material gRPC would reject at the first call. */
function checkCredentials(credentials: NonNullable<IOptions['credentials']>): void {
  checkTlsMaterial(
    { ca: 'options.credentials.rootCertificate', cert: 'options.credentials.certChain', key: 'options.credentials.privateKey' },
    { ca: credentials.rootCertificate, cert: credentials.certChain, key: credentials.privateKey },
  );
}
