import { CircuitState as BreakerState, type CircuitBreakerPolicy } from 'cockatiel';
import type { CircuitState } from '../config/events.js';

/** cockatiel's breaker states as reported in events and `lease_provider.circuit.state`. Isolated (manual) counts as open. */
export function circuitStateName(state: BreakerState): CircuitState {
  switch (state) {
    case BreakerState.Closed:
      return 'closed';
    case BreakerState.HalfOpen:
      return 'half-open';
    case BreakerState.Open:
    case BreakerState.Isolated:
      return 'open';
  }
}

/**
 * Reports every state change of one endpoint's circuit breaker (for the transport, which builds one
 * breaker per etcd endpoint). Returns the subscription's disposer.
 */
export function reportCircuit(
  breaker: CircuitBreakerPolicy,
  endpoint: string,
  report: (endpoint: string, state: CircuitState) => void,
): { dispose(): void } {
  return breaker.onStateChange((state) => report(endpoint, circuitStateName(state)));
}
