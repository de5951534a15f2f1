import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The probe (peak-rss.mjs) that reports a Node process's peak RSS at exit. */
const PEAK_RSS_PROBE = fileURLToPath(new URL('./peak-rss.mjs', import.meta.url));

/** Node flags and environment that make a process report its peak RSS; `read()` gives it in MB after exit. */
export function peakRssProbe(): { nodeArgs: string[]; env: Record<string, string>; read(): number; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'peak-rss-'));
  const file = join(dir, 'kb');
  return {
    nodeArgs: ['--import', PEAK_RSS_PROBE],
    env: { PEAK_RSS_FILE: file },
    read: () => Number(readFileSync(file, 'utf8')) / 1024,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
