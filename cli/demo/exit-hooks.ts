/**
 * Last-resort cleanup when the demo process ends without tearing down (an exception, a second
 * Ctrl-C, process.exit): etcd members and workers must not outlive it, nor its temp dirs.
 * 'exit' handlers cannot wait, so every hook is synchronous (SIGKILL, rmSync).
 */
const hooks = new Set<() => void>();
let installed = false;

export function onExit(hook: () => void): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', () => {
      // Newest first, like nested finally blocks: processes die before their data dir goes.
      for (const h of [...hooks].reverse()) {
        try {
          h();
        } catch {
          // one failed cleanup must not leave the others undone
        }
      }
      hooks.clear();
    });
  }
  hooks.add(hook);
  return () => hooks.delete(hook);
}

export function killQuietly(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
