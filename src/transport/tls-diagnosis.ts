import { isBrokenCircuitError, noop, type IDefaultPolicyContext, type IPolicy } from 'cockatiel';
import { GRPCUnavailableError } from 'etcd3';
import { parseEndpoint, type Endpoint } from '../config/endpoint.js';
import { POLICY } from '../policy.js';
import type { EndpointFailures } from './endpoint-failures.js';
import { probeEndpoint, type ProbeCredentials, type TlsProbeResult } from './tls-probe.js';
import { tlsVerdict, worksAsConfigured, type ClientTlsSetup, type TlsFinding } from './tls-verdict.js';

/**
 * Thrown by the client's global policy in place of a gRPC UNAVAILABLE when a TLS probe shows the TLS
 * setup is the cause. `classify` turns it into `EtcdTlsError` (never retried).
 */
export class TlsHandshakeFailure extends Error {
  constructor(
    readonly finding: TlsFinding,
    cause: unknown,
  ) {
    super(finding.detail, { cause });
    this.name = 'TlsHandshakeFailure';
  }
}

/** Whether etcd3 connects with TLS: with credentials, or to https:// hosts (then with the default root certificates). */
export function usesTls(hosts: readonly string[], credentials: ProbeCredentials | undefined): boolean {
  return credentials !== undefined || hosts.some((h) => h.startsWith('https:'));
}

/**
 * Why this exists instead of reading gRPC's error: grpc-js reports every connection failure — refused
 * port, dead member, untrusted certificate, missing client certificate, plaintext against TLS — as the
 * same UNAVAILABLE "No connection established", with the TLS reason only inside free text. A retry
 * policy cannot tell "wait for the member" from "this will never work" without parsing that text. So on
 * an UNAVAILABLE failure we ask the endpoints ourselves, with `node:tls` and the same TLS material, and
 * read the answer from typed fields (`authorized`, `authorizationError`, OpenSSL error codes).
 * One probe runs at a time and its verdict is reused, refreshed in the background every few seconds
 * while failures go on, so a storm of failing calls causes a handful of handshakes, not one per call,
 * and only a client's very first failure waits for one.
 */
export class TlsDiagnosis {
  private readonly endpoints: Endpoint[];
  private readonly setup: ClientTlsSetup;
  private pending: Promise<TlsFinding | undefined> | undefined;
  private verdict: { finding: TlsFinding | undefined; at: number } | undefined;

  constructor(
    hosts: readonly string[],
    private readonly credentials: ProbeCredentials | undefined,
    private readonly timeoutMs: number,
    /** Gets every endpoint's answer, also those that come after the verdict: they explain unavailable errors. */
    private readonly failures?: EndpointFailures,
  ) {
    this.endpoints = hosts.map(parseEndpoint).filter((e): e is Endpoint => e !== undefined);
    this.setup = {
      secure: usesTls(hosts, credentials),
      hasClientCertificate: credentials?.certChain !== undefined,
    };
  }

  /** The finding of a recent probe, without probing. */
  recent(): TlsFinding | undefined {
    if (this.verdict === undefined || performance.now() - this.verdict.at > POLICY.tlsProbe.verdictReuseMs) return undefined;
    return this.verdict.finding;
  }

  /**
   * What a failing attempt asks. Only the client's first failure waits for a probe (at most
   * `POLICY.tlsProbe.waitMs`); later ones take the last verdict as it is and, when it is old, refresh it in the
   * background. So a misconfigured client fails on its first attempt, while a working one in an outage
   * retries exactly as fast as it would without this check.
   */
  async explainFailure(): Promise<TlsFinding | undefined> {
    const verdict = this.verdict;
    if (verdict === undefined) return this.explainSoon();
    if (performance.now() - verdict.at > POLICY.tlsProbe.verdictReuseMs) void this.explain();
    return verdict.finding;
  }

  /**
   * A probe's verdict, waiting for it at most `POLICY.tlsProbe.waitMs` (undefined if it takes longer: it then
   * finishes in the background, and its verdict meets the next failure).
   */
  private async explainSoon(): Promise<TlsFinding | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, POLICY.tlsProbe.waitMs, undefined);
      timer.unref();
    });
    try {
      return await Promise.race([this.explain(), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Probes every endpoint (or reuses a recent verdict) and says whether TLS setup is what fails. */
  explain(): Promise<TlsFinding | undefined> {
    if (this.pending) return this.pending;
    if (this.verdict !== undefined && performance.now() - this.verdict.at <= POLICY.tlsProbe.verdictReuseMs) {
      return Promise.resolve(this.verdict.finding);
    }
    this.pending = this.probeAll()
      .then((finding) => {
        this.verdict = { finding, at: performance.now() };
        return finding;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /**
   * Probes every endpoint at once. The first that works as configured settles it (no TLS problem) without
   * waiting for the rest: a hung member must not hold a failing call back for a whole probe timeout.
   */
  private probeAll(): Promise<TlsFinding | undefined> {
    const material = this.setup.secure ? (this.credentials ?? {}) : undefined;
    return new Promise((resolve) => {
      const probes: Array<readonly [Endpoint, TlsProbeResult]> = [];
      let remaining = this.endpoints.length;
      if (remaining === 0) resolve(undefined);
      for (const endpoint of this.endpoints) {
        void probeEndpoint(endpoint, material, this.timeoutMs).then((result) => {
          this.failures?.probed(endpoint.text, result);
          probes.push([endpoint, result]);
          if (worksAsConfigured(this.setup, result)) resolve(undefined);
          if (--remaining === 0) resolve(tlsVerdict(this.setup, probes));
        });
      }
    });
  }

  /**
   * etcd3's global policy slot (it wraps every unary call, authentication included, and picks the host
   * inside): runs the call once — retries belong to CallRunner — and on UNAVAILABLE asks `explainFailure`.
   * An open circuit (the call never reached a member) reuses a recent verdict but does not probe.
   */
  policy(): IPolicy<IDefaultPolicyContext> {
    return new TlsDiagnosingPolicy(this);
  }
}

class TlsDiagnosingPolicy implements IPolicy<IDefaultPolicyContext> {
  declare readonly _altReturn: never;
  readonly onSuccess = noop.onSuccess;
  readonly onFailure = noop.onFailure;

  constructor(private readonly diagnosis: TlsDiagnosis) {}

  async execute<T>(fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T, signal?: AbortSignal): Promise<T> {
    try {
      return await fn({ signal: signal ?? new AbortController().signal });
    } catch (error) {
      const finding =
        error instanceof GRPCUnavailableError
          ? await this.diagnosis.explainFailure()
          : isBrokenCircuitError(error)
            ? this.diagnosis.recent()
            : undefined;
      if (finding) throw new TlsHandshakeFailure(finding, error);
      throw error;
    }
  }
}
