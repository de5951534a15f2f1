import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Directories still present when Node exits (an error path that skipped cleanup, process.exit from a
// signal handler) are removed synchronously, so no run leaves etcd data behind in the shared tmp.
const live = new Set<string>();
process.on('exit', () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir; `remove()` deletes it (also done at process exit). */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  live.add(path);
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      live.delete(path);
    },
  };
}
