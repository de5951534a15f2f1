import { afterEach, describe, expect, it, vi } from 'vitest';
import { METER_NAME, METER_VERSION, METRIC, type LeaseEvent } from '../../src/index.js';
import { recordingMeterProvider } from '../support/recording-meter-provider.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

const etcd = useEtcdCluster();

describe('events and metrics on a real cluster', () => {
  it('acquire latency, contention, batch sizes, waiters and losses are reported; no metric names a key or owner', async () => {
    const meter = recordingMeterProvider();
    const events: LeaseEvent[] = [];
    const prefix = etcd.uniquePrefix();
    const p = etcd.provider({ prefix, meterProvider: meter.provider, onEvent: (e) => events.push(e) });
    const raw = etcd.rawClient();

    const keys = Array.from({ length: 24 }, (_, i) => `key-secret-${i}`);
    await Promise.all(keys.map((k) => p.acquireLease(k, 'owner-secret-A', 5000)));
    expect(await p.acquireLease(keys[0]!, 'owner-secret-B', 5000)).toMatchObject({ acquired: false });
    const handle = await p.hold('held-secret', 'owner-secret-A', 2000);
    await raw.delete().key(`${prefix}held-secret`).exec();
    await waitFor('the handle to notice the delete', () => (handle.signal.aborted ? true : undefined), { timeoutMs: 2000 });

    const named = (name: string) => meter.records.filter((r) => r.name === name);
    const durations = named(METRIC.acquireDuration);
    expect(durations.filter((d) => d.attributes?.result === 'acquired')).toHaveLength(25);
    expect(durations.filter((d) => d.attributes?.result === 'contended')).toHaveLength(1);
    for (const d of durations) expect(d.value).toBeLessThan(5); // seconds
    expect(named(METRIC.contention)).toHaveLength(1);
    const batches = named(METRIC.batchSize).map((r) => r.value);
    expect(batches.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(26); // every operation rode in some batch
    expect(Math.max(...batches)).toBeGreaterThan(1); // 24 concurrent acquires shared transactions
    expect(named(METRIC.lost).map((r) => r.attributes?.reason)).toEqual([expect.stringMatching(/^(deleted|renew-refused)$/)]);
    const waiterDelta = named(METRIC.waiters).reduce((sum, r) => sum + r.value, 0);
    expect(waiterDelta).toBe(0);
    expect(named(METRIC.holds).reduce((sum, r) => sum + r.value, 0)).toBe(0);
    expect(JSON.stringify(meter.records)).not.toMatch(/secret/);
    // OpenTelemetry-style names, units in `unit`, and the package's scope.
    expect(meter.versions.every((v) => v === METER_VERSION) && meter.meters.every((n) => n === METER_NAME)).toBe(true);
    for (const { name } of meter.created) expect(name).toMatch(/^lease_provider\.[a-z_.]+$/);
    expect(meter.created.find((c) => c.name === METRIC.acquireDuration)?.unit).toBe('s');

    expect(events.filter((e) => e.type === 'acquired')).toHaveLength(25);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'contended', key: keys[0], owner: 'owner-secret-B', holder: 'owner-secret-A' }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: 'lost', key: 'held-secret', owner: 'owner-secret-A' }));
  });
});

describe('warnings without a logger', () => {
  afterEach(() => vi.restoreAllMocks());

  const throwingListener = (): never => {
    throw new Error('listener bug');
  };

  it('a provider built without a logger writes its warnings to stderr, one line each', async () => {
    const written: string[] = [];
    const realWrite = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk, ...rest) => {
      written.push(String(chunk));
      return realWrite(chunk as string, ...(rest as []));
    });
    const p = etcd.provider({ prefix: etcd.uniquePrefix(), onEvent: throwingListener });
    await expect(p.acquireLease('k', 'A', 5000)).resolves.toMatchObject({ acquired: true });
    expect(written.filter((line) => line.startsWith('etcd-lease-provider warn: options.onEvent threw'))).toEqual([
      'etcd-lease-provider warn: options.onEvent threw; the event is dropped (type="acquired", error="Error: listener bug")\n',
    ]);
  });

  it('a given logger replaces the default: the warning goes to it, not to stderr', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const warnings: string[] = [];
    const p = etcd.provider({ prefix: etcd.uniquePrefix(), onEvent: throwingListener, logger: { warn: (message) => warnings.push(message) } });
    await expect(p.acquireLease('k', 'A', 5000)).resolves.toMatchObject({ acquired: true });
    expect(warnings).toEqual(['options.onEvent threw; the event is dropped']);
    expect(written.join('')).not.toContain('etcd-lease-provider warn');
  });
});
