import { describe, expect, it } from 'vitest';
import { METRIC, type LeaseEvent } from '../../src/index.js';
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

    expect(events.filter((e) => e.type === 'acquired')).toHaveLength(25);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'contended', key: keys[0], owner: 'owner-secret-B', holder: 'owner-secret-A' }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: 'lost', key: 'held-secret', owner: 'owner-secret-A' }));
  });
});
