/**
 * Last-resort cleanup when a process ends without tearing down (an exception, a crashed test file, a
 * second Ctrl-C, process.exit): etcd members, containers, demo workers and temp dirs must not outlive it
 * and keep ports and CPU busy. Hooks run synchronously (SIGKILL, rmSync), because 'exit' handlers cannot wait.
 */

const hooks: Array<() => void> = [];
let onExitInstalled = false;
let onSignalsInstalled = false;

/** Registers a synchronous cleanup for process exit; returns the function that unregisters it. */
export function onProcessExit(hook: () => void): () => void {
  if (!onExitInstalled) {
    onExitInstalled = true;
    process.on('exit', runHooks);
  }
  hooks.push(hook);
  return () => {
    const index = hooks.indexOf(hook);
    if (index >= 0) hooks.splice(index, 1);
  };
}

/**
 * Also runs the hooks on SIGINT, SIGTERM and SIGHUP, then re-raises the signal so the process still dies
 * of it: signals skip 'exit' handlers. Only for processes with no signal handling of their own (a test
 * run); the demo answers Ctrl-C itself and tears down in order.
 */
export function cleanUpOnSignals(): void {
  if (onSignalsInstalled) return;
  onSignalsInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      runHooks();
      process.kill(process.pid, signal);
    });
  }
}

/** Signals a process that may already be gone. SIGKILL also ends a stopped (paused) process. */
export function killQuietly(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
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
