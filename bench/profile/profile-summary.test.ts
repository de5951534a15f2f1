import { describe, expect, it } from 'vitest';
import type { CpuProfile } from './cpu-profile.js';
import { summarizeProfile } from './profile-summary.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url, lineNumber: 0 }, children });

// root → provider commit → protobufjs encode → Buffer builtin; root → timers; root → GC; root → idle
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 5, 6, 7]),
    frame(2, 'commit', 'file:///x/dist/index.js', [3]),
    frame(3, 'encode', 'file:///x/node_modules/protobufjs/src/writer.js', [4]),
    frame(4, 'from', 'node:buffer'),
    frame(5, 'listOnTimeout', 'node:internal/timers'),
    frame(6, '(garbage collector)', ''),
    frame(7, '(idle)', ''),
  ],
  samples: [2, 3, 4, 4, 5, 6, 7, 7],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  startTime: 0,
  endTime: 8000,
};

describe('profile summary', () => {
  it('gives a builtin\u2019s time to the nearest library frame that called it, and leaves idle out of the shares', () => {
    const { parts, totalMs } = summarizeProfile(profile);
    expect(totalMs).toBe(8);
    expect(Object.fromEntries(parts.map((p) => [p.part, p.ms]))).toEqual({
      'protobuf codec (etcd3 / proto-loader / protobufjs)': 3,
      'provider (this package)': 1,
      'node timers': 1,
      'garbage collection': 1,
    });
    expect(parts[0]!.share).toBeCloseTo(0.5);
  });
});
