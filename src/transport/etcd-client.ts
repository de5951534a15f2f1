import { Etcd3, isRecoverableError, type IOptions } from 'etcd3';
import { redactAuth, redactCredentials } from '../config/redact.js';
import { checkTlsMaterial } from '../config/tls-material.js';
import type { CircuitState } from '../config/events.js';
import { reportCircuit } from '../metrics/circuit.js';
import type { EtcdLeaseProviderOptions } from '../config/options.js';
import { EndpointFailures } from './endpoint-failures.js';
import { isMessageSizeError } from './message-size.js';
import { MemberBreakers } from './member-breakers.js';
import { memberBreaker } from './policy.js';
import { RAISED_RECEIVE_LIMIT, withRaisedReceiveLimit } from './receive-limit.js';
import { TlsDiagnosis, usesTls } from './tls-diagnosis.js';

/**
 * Builds the etcd3 client the provider owns.
 *
 * etcd3's default global policy re-sends any "recoverable" failure three times at once — writes
 * included, even when the failure is ambiguous. We replace it with a policy that runs each call once
 * (CallRunner retries, where every resend is an idempotent operation under one deadline) and that
 * turns a connection failure caused by TLS setup into a non-retryable error (see TlsDiagnosis).
 * Per host we keep a circuit breaker: two consecutive transient failures (a dead or hung member)
 * stop traffic to that member for a second, so the next attempt goes to another endpoint — unless every
 * member's breaker is open, when calls go through anyway (MemberBreakers). What each host last failed with is kept (EndpointFailures) for the error a call that gives up reports.
 */
export function createEtcdClient(
  options: EtcdLeaseProviderOptions,
  hosts: string[],
  attemptTimeoutMs: number,
  onCircuit?: (endpoint: string, state: CircuitState) => void,
): Etcd3 {
  const credentials = options.credentials;
  if (credentials !== undefined) checkCredentials(credentials);
  const failures = new EndpointFailures(usesTls(hosts, credentials));
  const diagnosis = new TlsDiagnosis(hosts, credentials, attemptTimeoutMs, failures);
  const breakers = new MemberBreakers();
  const client = new Etcd3({
    hosts,
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
    faultHandling: {
      global: failures.policy(diagnosis.policy()),
      host: (endpoint) => {
        // A message over a size limit is no sign of a sick member (etcd3 marks it recoverable all the same).
        const breaker = memberBreaker((e) => e instanceof Error && isRecoverableError(e) && !isMessageSizeError(e));
        if (onCircuit) reportCircuit(breaker, endpoint, onCircuit);
        // What the breaker counts is a failure of the member; anything else came from a member that answered.
        breaker.onFailure(({ handled, reason }) => {
          if (handled && 'error' in reason) failures.failed(endpoint, reason.error);
          else failures.answered(endpoint);
        });
        breaker.onSuccess(() => failures.answered(endpoint));
        return breakers.add(breaker);
      },
    },
  });
  return withRaisedReceiveLimit(client);
}

/** Fails at construction, with the option named, on TLS material gRPC would reject at the first call. */
function checkCredentials(credentials: NonNullable<IOptions['credentials']>): void {
  checkTlsMaterial(
    { ca: 'options.credentials.rootCertificate', cert: 'options.credentials.certChain', key: 'options.credentials.privateKey' },
    { ca: credentials.rootCertificate, cert: credentials.certChain, key: credentials.privateKey },
  );
}
