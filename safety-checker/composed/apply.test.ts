import { describe, expect, it } from 'vitest';
import type { FaultableCluster } from '../../launcher/types.js';
import { applySchedule, type ClientFaults } from './apply.js';
import type { FaultSchedule, ScheduledFault } from './schedule.js';

/** A cluster that records what it was asked, in order, on one counter (no etcd: the applier's own logic). */
function recordingCluster(calls: string[]): FaultableCluster {
  const record = (name: string) => async (...args: unknown[]) => void calls.push(`${name}(${args.join(',')})`);
  return new Proxy({} as FaultableCluster, { get: (_, name) => record(String(name)) });
}

function recordingClients(calls: string[], processes: number): ClientFaults {
  return {
    processes,
    suspend: async (p, ms) => void calls.push(`suspend(${p},${ms})`),
    stepClock: async (p, ms) => void calls.push(`stepClock(${p},${ms})`),
    flood: async (p, ms) => void calls.push(`flood(${p},${ms})`),
  };
}

const fault = (id: number, kind: ScheduledFault['kind'], atMs: number, holdMs: number, extra: Partial<ScheduledFault> = {}): ScheduledFault => ({
  id,
  kind,
  atMs,
  holdMs,
  members: [],
  ...extra,
});

describe('applySchedule', () => {
  it('overlaps faults as scheduled, heals each one its own way, and fans client faults out to every workload', async () => {
    const calls: string[] = [];
    const schedule: FaultSchedule = {
      seed: 1,
      spanMs: 100,
      faults: [
        fault(0, 'kill', 0, 60, { members: [1] }),
        fault(1, 'slow-link', 20, 10, { members: [2] }),
        fault(2, 'clock-step', 40, 0, { process: 4, stepMs: -5000 }),
        fault(3, 'quorum-loss', 80, 10, { members: [0, 2] }),
      ],
    };
    let clock = 0;
    const timeline = await applySchedule(schedule, { cluster: recordingCluster(calls), clients: [recordingClients(calls, 3), recordingClients(calls, 2)] }, { now: () => clock++ });
    expect(calls).toEqual([
      'kill(1)',
      'setClientLatency(2,2500,1000)',
      'heal(2)',
      'stepClock(1,-5000)',
      'stepClock(0,-5000)',
      'restart(1)',
      'kill(0)',
      'kill(2)',
      'restart(0)',
      'restart(2)',
    ]);
    expect(timeline.map((f) => f.id)).toEqual([0, 1, 2, 3]);
    for (const f of timeline) expect(f.startedAt <= f.injectedAt && f.injectedAt <= f.healStartedAt && f.healStartedAt <= f.endedAt).toBe(true);
  });

  it('runs every fault to its end when one fails, clears the network, and names the failed one', async () => {
    const calls: string[] = [];
    const cluster = recordingCluster(calls);
    const failing = new Proxy(cluster, { get: (target, name) => (name === 'pause' ? async () => Promise.reject(new Error('no such member')) : Reflect.get(target, name)) });
    const schedule: FaultSchedule = { seed: 7, spanMs: 10, faults: [fault(0, 'pause', 0, 5, { members: [9] }), fault(1, 'blackhole', 0, 5, { members: [1] })] };
    await expect(applySchedule(schedule, { cluster: failing, clients: [] })).rejects.toThrow(/seed 7[\s\S]*#0 .*pause member 9.*no such member/);
    expect(calls).toEqual(['blackhole(1)', 'heal(1)', 'healAll()']);
  });
});
