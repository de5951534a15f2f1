import { describe, expect, it } from 'vitest';
import type { EtcdTestCluster } from './cluster.js';
import { runComposedFaults } from './composed.js';

// Only the refusals: a run itself needs a cluster (test/testing/composed-faults.test.ts).
const cluster = { size: 3, quotaBackendBytes: undefined } as unknown as EtcdTestCluster;
const workload = async () => ({ name: 'w', stop: async () => {}, judge: () => ({ workload: 'w', calls: 0, granted: 0, violations: {}, examples: [] }) });

describe('runComposedFaults refuses bad options, naming them, before touching the cluster', () => {
  it.each([
    [{ seed: 1.5, spanMs: 1000, workloads: [workload] }, /options\.seed/],
    [{ seed: 1, spanMs: 0, workloads: [workload] }, /options\.spanMs/],
    [{ seed: 1, spanMs: 1000, workloads: [] }, /options\.workloads/],
    [{ seed: 1, spanMs: 1000, workloads: [workload], kinds: ['nospace' as const] }, /quotaBackendBytes/],
  ])('%o', (options, message) => {
    expect(() => runComposedFaults({ cluster, ...options })).toThrow(message);
  });
});
