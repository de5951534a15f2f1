/**
 * `runComposedFaults` pointed at a workload of the user's own making: two workers holding keys through
 * `recordLeaseCalls`, one seeded schedule of overlapping kills and pauses, judged by `judgeLeaseHistory`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EtcdLeaseProvider } from '../../src/provider.js';
import { judgeLeaseHistory, recordLeaseCalls, runComposedFaults, useEtcdCluster } from '../../src/testing/index.js';
import { contend } from './support/contention.js';

const etcd = useEtcdCluster({ beforeAll, afterAll });

it('runs a seeded schedule of overlapping faults against a recorded lease workload and judges it: no overlap, no fencing violation', async () => {
  const { cluster } = etcd;
  const result = await runComposedFaults({
    cluster,
    seed: 7,
    spanMs: 6000,
    kinds: ['kill', 'pause', 'blackhole'],
    warmUpMs: 500,
    settleMs: 1000,
    workloads: [
      async ({ cluster: c, seed }) => {
        const owners = ['w1', 'w2'].map((owner) => ({
          owner,
          provider: recordLeaseCalls(new EtcdLeaseProvider({ hosts: c.endpoints(), prefix: `composed-kit/${process.pid}/${seed}/` }), { client: owner }),
        }));
        const run = contend(new Map(owners.map((o) => [o.owner, o.provider])), ['a', 'b', 'c'], { ttlMs: 4000, intervalMs: 100, renewEveryMs: 1300 });
        return {
          name: 'two workers',
          async stop() {
            await run.stop();
            await Promise.all(owners.map((o) => o.provider.close()));
          },
          judge: (timeline) => judgeLeaseHistory('two workers', owners.flatMap((o) => o.provider.history), timeline, { members: c.size, processes: 1, processOf: () => 0 }),
        };
      },
    ],
  });
  console.info(`seed ${result.seed}: ${result.timeline.length} faults applied, ${JSON.stringify(result.verdicts)}`);
  expect(result.timeline.length).toBeGreaterThan(0);
  const [verdict] = result.verdicts;
  expect(verdict!.granted).toBeGreaterThan(0);
  expect(verdict!.violations.overlaps).toBe(0);
  expect(verdict!.violations.fencing).toBe(0);
}, 120_000);
