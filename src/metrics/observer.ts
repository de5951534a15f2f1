import { metrics, type MeterProvider, type ObservableCallback } from '@opentelemetry/api';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import type { LeaseLossReason } from '../errors/lease-lost.js';
import type { AcquireDecision } from '../results.js';
import type { LeaseLogger } from '../config/options.js';
import type { CircuitState, LeaseEvent, LeaseEventListener } from '../config/events.js';
import { parseEndpoint } from '../config/endpoint.js';
import { errorType } from './error-type.js';
import { CIRCUIT_STATE_VALUE, createInstruments, type Instruments, type ServerAttributes } from './instruments.js';
import { leaseMeter } from './meter-scope.js';

interface ObserverOptions {
  onEvent?: LeaseEventListener | undefined;
  meterProvider?: MeterProvider | undefined;
  logger: LeaseLogger;
}

/**
 * The one place where the provider reports what happens: to the `onEvent` listener and to OpenTelemetry
 * instruments. Reporting never changes an operation's outcome: a throwing listener is logged and ignored.
 */
export class LeaseObserver {
  private readonly onEvent: LeaseEventListener | undefined;
  private readonly logger: LeaseLogger;
  private readonly instruments: Instruments;
  private readonly circuits = new Map<string, CircuitState>();
  private readonly observeCircuits: ObservableCallback<ServerAttributes>;

  constructor(options: ObserverOptions) {
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
      throw new LeaseArgumentTypeError('options.onEvent', 'must be a function (event) => void');
    }
    const meterProvider = options.meterProvider ?? metrics;
    if (typeof meterProvider?.getMeter !== 'function') {
      throw new LeaseArgumentTypeError('options.meterProvider', 'must be an OpenTelemetry MeterProvider');
    }
    this.onEvent = options.onEvent;
    this.logger = options.logger;
    this.instruments = createInstruments(leaseMeter(meterProvider));
    this.observeCircuits = (result) => {
      for (const [endpoint, state] of this.circuits) result.observe(CIRCUIT_STATE_VALUE[state], serverAttributes(endpoint));
    };
    this.instruments.circuitState.addCallback(this.observeCircuits);
  }

  /** Times one acquire and reports its result. (Promise callbacks, not an async function: it wraps every acquire.) */
  timeAcquire(key: string, owner: string, run: () => Promise<AcquireDecision>): Promise<AcquireDecision> {
    const startedAt = performance.now();
    let running: Promise<AcquireDecision>;
    try {
      running = run();
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (result) => this.acquireAnswered(key, owner, startedAt, result),
      (error: unknown) => {
        this.instruments.acquireDuration.record(seconds(startedAt), { result: 'error', 'error.type': errorType(error) });
        throw error;
      },
    );
  }

  private acquireAnswered(key: string, owner: string, startedAt: number, result: AcquireDecision): AcquireDecision {
    const durationMs = performance.now() - startedAt;
    if (result.acquired) {
      this.instruments.acquireDuration.record(durationMs / 1000, { result: 'acquired' });
      this.emit({ type: 'acquired', key, owner, fencingToken: result.fencingToken, durationMs });
    } else {
      this.instruments.acquireDuration.record(durationMs / 1000, { result: 'contended' });
      this.instruments.contention.add(1);
      this.emit({ type: 'contended', key, owner, holder: result.owner, durationMs });
    }
    return result;
  }

  /** A renew answered false: the caller has lost the lease. */
  watchRenew(key: string, owner: string, renew: Promise<boolean>): Promise<boolean> {
    // A promise callback, not an async function: it wraps every renew (held leases renew all the time).
    return renew.then((renewed) => {
      if (!renewed) this.lost(key, owner, 'renew-refused');
      return renewed;
    });
  }

  /** A holder learned it lost its lease. `released` and `closed` are endings, not losses: not counted. */
  lost(key: string, owner: string, reason: LeaseLossReason): void {
    if (reason === 'released' || reason === 'closed') return;
    this.instruments.lost.add(1, { reason });
    this.emit({ type: 'lost', key, owner, reason });
  }

  batch(size: number): void {
    this.instruments.batchSize.record(size);
  }

  circuit(endpoint: string, state: CircuitState): void {
    if (this.circuits.get(endpoint) === state) return;
    this.circuits.set(endpoint, state);
    this.emit({ type: 'circuit', endpoint, state });
  }

  waiterStarted(): void {
    this.instruments.waiters.add(1);
  }

  waiterEnded(): void {
    this.instruments.waiters.add(-1);
  }

  holdStarted(): void {
    this.instruments.holds.add(1);
  }

  holdEnded(): void {
    this.instruments.holds.add(-1);
  }

  /** Detaches the observable callback, so a closed provider stops reporting circuit states. */
  close(): void {
    this.instruments.circuitState.removeCallback(this.observeCircuits);
  }

  private emit(event: LeaseEvent): void {
    if (!this.onEvent) return;
    try {
      this.onEvent(event);
    } catch (error) {
      this.logger.warn?.('options.onEvent threw; the event is dropped', { type: event.type, error });
    }
  }
}

function seconds(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}

/** An endpoint as OpenTelemetry names a server: host without scheme or brackets, and port. */
function serverAttributes(endpoint: string): ServerAttributes {
  const parsed = parseEndpoint(endpoint);
  return parsed === undefined ? { 'server.address': endpoint } : { 'server.address': parsed.host, 'server.port': parsed.port };
}
