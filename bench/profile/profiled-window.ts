import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startCpuProfile, type CpuRecording } from './cpu-profile.js';
import { formatProfileSummary, summarizeProfile } from './profile-summary.js';

/**
 * A measured window under V8's profiler: `start` begins recording, `end(ops)` writes `DIR/NAME.cpuprofile` and prints
 * where the CPU went, per `label` (renewal, acquire) over the `ops` the window served.
 */
export function profiledWindow(dir: string, name: string, label: string): { start(): Promise<void>; end(ops: number): Promise<void> } {
  let recording: CpuRecording | undefined;
  return {
    async start() {
      recording = await startCpuProfile();
    },
    async end(ops) {
      if (recording === undefined) return;
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${name}.cpuprofile`);
      const summary = summarizeProfile(await recording.stop(file));
      recording = undefined;
      console.log(`\nCPU profile of ${name} (${ops} ${label}s): ${file}`);
      console.log(formatProfileSummary(summary, { ops: Math.max(1, ops), label }));
      console.log('');
    },
  };
}
