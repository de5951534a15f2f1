/**
 * Last-resort cleanup when the test process ends without calling stop() (a crashed test file,
 * Ctrl-C, a worker terminated by vitest): etcd children and containers must not outlive it
 * and keep ports and CPU busy. Hooks run synchronously, because 'exit' handlers cannot wait.
 */

const hooks: Array<() => void> = [];
let installed = false;

/** Registers a synchronous cleanup; returns the function that unregisters it. */
export function onProcessExit(hook: () => void): () => void {
  install();
  hooks.push(hook);
  return () => {
    const index = hooks.indexOf(hook);
    if (index >= 0) hooks.splice(index, 1);
  };
}

function runHooks(): void {
  // Newest first, like nested finally blocks: members die before their data dir is removed.
  for (const hook of hooks.splice(0).reverse()) {
    try {
      hook();
    } catch {
      // Keep going: one failed cleanup must not leave the others undone.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runHooks);
  // Signals skip 'exit' handlers; clean up, then re-raise so the process still dies of it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      runHooks();
      process.kill(process.pid, signal);
    });
  }
}
