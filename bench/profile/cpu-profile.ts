import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** A CPU profile being recorded in this process; `stop` writes it as a .cpuprofile (Chrome DevTools, speedscope). */
export interface CpuRecording {
  stop(path: string): Promise<CpuProfile>;
}

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** V8's profile: a call tree, and which node each sample landed in (`timeDeltas` µs apart). */
export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/**
 * Starts V8's sampling profiler in this process (as `node --cpu-prof` does for a whole run), so a benchmark can
 * profile exactly its measured window and nothing of its setup. Samples every `intervalUs` µs.
 */
export async function startCpuProfile(intervalUs = 500): Promise<CpuRecording> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return {
    async stop(path) {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
      session.disconnect();
      writeFileSync(path, JSON.stringify(profile));
      return profile;
    },
  };
}
