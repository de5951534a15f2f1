import { circuitBreaker, ConsecutiveBreaker, handleAll } from 'cockatiel';
import { describe, expect, it } from 'vitest';
import type { CircuitState } from '../config/events.js';
import { reportCircuit } from './circuit.js';

describe('circuit breaker reporting', () => {
  it('reports open, half-open and closed for the endpoint whose breaker changed', async () => {
    const breaker = circuitBreaker(handleAll, { halfOpenAfter: 10, breaker: new ConsecutiveBreaker(1) });
    const seen: Array<[string, CircuitState]> = [];
    const subscription = reportCircuit(breaker, 'http://127.0.0.1:2379', (endpoint, state) => seen.push([endpoint, state]));
    await breaker.execute(() => Promise.reject(new Error('down'))).catch(() => {});
    await new Promise((r) => setTimeout(r, 20));
    await breaker.execute(() => Promise.resolve('up'));
    expect(seen).toEqual([
      ['http://127.0.0.1:2379', 'open'],
      ['http://127.0.0.1:2379', 'half-open'],
      ['http://127.0.0.1:2379', 'closed'],
    ]);
    subscription.dispose();
  });
});
