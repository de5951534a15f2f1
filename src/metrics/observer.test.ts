import { describe, expect, it } from 'vitest';
import { LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import type { LeaseEvent } from '../config/events.js';
import { EtcdUnavailableError } from '../errors/unavailable.js';
import { METER_NAME, METER_VERSION, METRIC } from './instruments.js';
import { LeaseObserver } from './observer.js';
import { recordingMeterProvider } from '../../test/support/recording-meter-provider.js';

describe('LeaseObserver', () => {
  it('records acquire latency in seconds by result (error.type on errors), and counts contention, with no key or owner label', async () => {
    const m = recordingMeterProvider();
    const events: LeaseEvent[] = [];
    const observer = new LeaseObserver({ meterProvider: m.provider, onEvent: (e) => events.push(e), logger: {} });
    await observer.timeAcquire('secret-key', 'secret-owner', async () => ({ acquired: true, owner: 'secret-owner', fencingToken: '7' }));
    await observer.timeAcquire('secret-key', 'other', async () => ({ acquired: false, owner: 'secret-owner' }));
    await expect(observer.timeAcquire('secret-key', 'x', () => Promise.reject(new EtcdUnavailableError('acquire', 3, 5000, new Error('down'))))).rejects.toThrow('down');
    await expect(observer.timeAcquire('secret-key', 'x', () => Promise.reject(new TypeError('bug')))).rejects.toThrow('bug');

    expect(m.meters).toEqual([METER_NAME]);
    expect(m.versions).toEqual([METER_VERSION]);
    const durations = m.records.filter((r) => r.name === METRIC.acquireDuration);
    expect(durations.map((r) => r.attributes)).toEqual([
      { result: 'acquired' },
      { result: 'contended' },
      { result: 'error', 'error.type': 'ELEASE_UNAVAILABLE' },
      { result: 'error', 'error.type': 'TypeError' },
    ]);
    for (const d of durations) expect(d.value).toBeLessThan(1); // seconds, not milliseconds
    expect(m.created.find((c) => c.name === METRIC.acquireDuration)?.unit).toBe('s');
    expect(m.records.filter((r) => r.name === METRIC.contention)).toHaveLength(1);
    expect(JSON.stringify(m.records)).not.toMatch(/secret/);
    expect(events.map((e) => e.type)).toEqual(['acquired', 'contended']);
    expect(events[1]).toMatchObject({ key: 'secret-key', owner: 'other', holder: 'secret-owner' });
  });

  it('counts losses by reason, but not releases or closing', async () => {
    const m = recordingMeterProvider();
    const observer = new LeaseObserver({ meterProvider: m.provider, logger: {} });
    expect(await observer.watchRenew('k', 'A', Promise.resolve(false))).toBe(false);
    expect(await observer.watchRenew('k', 'A', Promise.resolve(true))).toBe(true);
    observer.lost('k', 'A', 'deleted');
    observer.lost('k', 'A', 'released');
    observer.lost('k', 'A', 'closed');
    expect(m.records.filter((r) => r.name === METRIC.lost).map((r) => r.attributes)).toEqual([
      { reason: 'renew-refused' },
      { reason: 'deleted' },
    ]);
  });

  it('reports batch sizes and circuit state per endpoint as server.address and server.port, and stops observing once closed', () => {
    const m = recordingMeterProvider();
    const events: LeaseEvent[] = [];
    const observer = new LeaseObserver({ meterProvider: m.provider, onEvent: (e) => events.push(e), logger: {} });
    observer.batch(12);
    observer.circuit('http://a:2379', 'open');
    observer.circuit('http://a:2379', 'open'); // no change: no event
    observer.circuit('https://[::1]:2380', 'closed');
    expect(m.records.find((r) => r.name === METRIC.batchSize)?.value).toBe(12);
    expect(m.collect()).toEqual([
      { name: METRIC.circuitState, value: 2, attributes: { 'server.address': 'a', 'server.port': 2379 } },
      { name: METRIC.circuitState, value: 0, attributes: { 'server.address': '::1', 'server.port': 2380 } },
    ]);
    expect(events).toEqual([
      { type: 'circuit', endpoint: 'http://a:2379', state: 'open' },
      { type: 'circuit', endpoint: 'https://[::1]:2380', state: 'closed' },
    ]);
    observer.close();
    expect(m.collect()).toEqual([]);
  });

  it('a throwing listener is logged and never changes the operation result', async () => {
    const warnings: string[] = [];
    const observer = new LeaseObserver({
      onEvent: () => {
        throw new Error('listener bug');
      },
      logger: { warn: (message) => warnings.push(message) },
    });
    await expect(observer.timeAcquire('k', 'A', async () => ({ acquired: true, owner: 'A', fencingToken: '1' }))).resolves.toMatchObject({
      acquired: true,
    });
    expect(warnings).toHaveLength(1);
  });

  it('rejects a non-function onEvent and a meterProvider without getMeter, naming the option', () => {
    expect(() => new LeaseObserver({ onEvent: 5 as never, logger: {} })).toThrow(LeaseArgumentTypeError);
    expect(() => new LeaseObserver({ meterProvider: {} as never, logger: {} })).toThrow(/^options.meterProvider/);
  });

  it('uses the global no-op meter when no meterProvider is given', async () => {
    const observer = new LeaseObserver({ logger: {} });
    await expect(observer.timeAcquire('k', 'A', async () => ({ acquired: false, owner: 'B' }))).resolves.toEqual({
      acquired: false,
      owner: 'B',
    });
    observer.close();
  });
});
