import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/** A server process the benchmark started; output goes to a log file, quoted when it fails. */
export interface Child {
  readonly name: string;
  /** Why the process is gone, or undefined while it runs. */
  exitReason(): string | undefined;
  /** Last lines of its log, for error messages. */
  logTail(lines?: number): string;
  /** SIGKILL and wait for the exit: benchmark data is disposable, so there is nothing to shut down gracefully. */
  stop(): Promise<void>;
}

// Children still running when Node exits (an uncaught error, process.exit) are killed synchronously,
// so a failed run never leaves etcd or redis listening on the machine other engineers share.
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function spawnLogged(name: string, bin: string, args: string[], logFile: string): Promise<Child> {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(bin, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
  let reason: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      reason ??= signal ? `${name} killed by ${signal}` : `${name} exited with code ${code}`;
      live.delete(child);
      resolve();
    });
    child.once('error', (error) => {
      reason ??= `${name} could not run ${bin}: ${error.message}`;
      live.delete(child);
      resolve();
    });
  });
  await new Promise<void>((resolve) => {
    child.once('spawn', resolve);
    child.once('error', () => resolve());
  });
  if (reason) throw new Error(reason);
  live.add(child);
  return {
    name,
    exitReason: () => reason,
    logTail: (lines = 15) => {
      try {
        return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
    stop: async () => {
      if (reason === undefined) {
        reason = `${name} stopped`;
        child.kill('SIGKILL');
      }
      await exited;
    },
  };
}
