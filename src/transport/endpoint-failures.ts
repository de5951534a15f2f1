import { noop, type IDefaultPolicyContext, type IPolicy } from 'cockatiel';
import type { EndpointCause } from '../errors/unavailable.js';
import { endpointCause } from './endpoint-cause.js';
import type { TlsProbeResult } from './tls-probe.js';

/** Which client's record an error came through (see `EndpointFailures.policy`). */
const recordOfError = new WeakMap<object, EndpointFailures>();

/**
 * What one etcd client last saw of each endpoint: the error its last failed call there ended with (cleared
 * when the endpoint answers again) and its latest probe. An `EtcdUnavailableError` reads it when a call
 * gives up, so the error names each endpoint's cause instead of the open circuit that stopped the
 * last attempt.
 */
export class EndpointFailures {
  private readonly failures = new Map<string, Error>();
  private readonly probes = new Map<string, TlsProbeResult>();

  /** @param secure whether the client talks TLS (credentials or https:// endpoints) */
  constructor(private readonly secure: boolean) {}

  /** A call to `endpoint` failed in a way that says something about the endpoint (what its circuit counts). */
  failed(endpoint: string, error: unknown): void {
    if (error instanceof Error) this.failures.set(endpoint, error);
  }

  /** `endpoint` answered (with a result or an error of etcd's own): it is reachable. */
  answered(endpoint: string): void {
    this.failures.delete(endpoint);
  }

  probed(endpoint: string, result: TlsProbeResult): void {
    this.probes.set(endpoint, result);
  }

  /** The cause of every endpoint whose last call failed, in the order they failed first. */
  causes(): EndpointCause[] {
    return [...this.failures].map(([endpoint, error]) => endpointCause(endpoint, error, this.probes.get(endpoint), this.secure));
  }

  /**
   * Wraps the client's global policy (every call passes through it): errors it lets through are tagged
   * with this record, so the call runner, which sees only errors, finds the record of its client.
   */
  policy(inner: IPolicy<IDefaultPolicyContext>): IPolicy<IDefaultPolicyContext> {
    return new TaggingPolicy(inner, this);
  }
}

/** The record of the client an error came through, if it came through one built by `createEtcdClient`. */
export function endpointFailuresOf(error: unknown): EndpointFailures | undefined {
  return typeof error === 'object' && error !== null ? recordOfError.get(error) : undefined;
}

class TaggingPolicy implements IPolicy<IDefaultPolicyContext> {
  declare readonly _altReturn: never;
  readonly onSuccess = noop.onSuccess;
  readonly onFailure = noop.onFailure;

  constructor(
    private readonly inner: IPolicy<IDefaultPolicyContext>,
    private readonly record: EndpointFailures,
  ) {}

  async execute<T>(fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T, signal?: AbortSignal): Promise<T> {
    try {
      return await this.inner.execute(fn, signal);
    } catch (error) {
      if (typeof error === 'object' && error !== null) recordOfError.set(error, this.record);
      throw error;
    }
  }
}
