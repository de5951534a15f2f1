import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Repository root: the CLI runs from its sources, as `npm start` does. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How the run's etcd members are started (chosen once by the global setup): the demo must start its own the same way. */
const LAUNCHER_VARIABLES = new Set(['ETCD_BIN', 'ETCD_DRIVER', 'ETCD_IMAGE']);

/**
 * The inherited environment minus every ETCD_* variable but the launcher's: a developer's own
 * ETCD_ENDPOINTS must not send a test (or the demo's embedded-cluster mode) to another cluster.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('ETCD_') || LAUNCHER_VARIABLES.has(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

export interface CliOptions {
  /** Node flags before the CLI's own (e.g. `--import` of a probe). */
  nodeArgs?: readonly string[];
  /** Close the read end of stdout once this many bytes arrived, as `| head` does. */
  closeStdoutAfterBytes?: number;
}

/** A running `etcd-lease` process whose output can be waited on. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;
  private readonly child: ChildProcess;
  private readonly listeners = new Set<() => void>();

  constructor(args: readonly string[], env: NodeJS.ProcessEnv, options: CliOptions = {}) {
    this.child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'cli/main.ts', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      if (options.closeStdoutAfterBytes !== undefined && this.stdout.length >= options.closeStdoutAfterBytes) this.child.stdout?.destroy();
      this.notify();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        this.notify();
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Resolves once `condition` holds on the output so far; rejects with the output after `timeoutMs`. */
  until(what: string, condition: (p: CliProcess) => boolean, timeoutMs = 15_000): Promise<void> {
    if (condition(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!condition(this)) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.stderr}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
    });
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** Runs `etcd-lease ARGS` to completion. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = cleanEnv(), timeoutMs = 30_000, options: CliOptions = {}): Promise<CliResult> {
  const cli = new CliProcess(args, env, options);
  const timer = setTimeout(() => cli.signal('SIGKILL'), timeoutMs);
  try {
    return await cli.exited;
  } finally {
    clearTimeout(timer);
  }
}
