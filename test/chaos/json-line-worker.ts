import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { killQuietly, onProcessExit } from '../../launcher/exit-cleanup.js';
import { waitFor } from '../support/wait.js';

export interface JsonLineWorkerOptions<Message> {
  /** The worker's script, run with tsx, relative to the repository root. */
  readonly script: string;
  /** Extra environment (the worker's JSON config). */
  readonly env: Readonly<Record<string, string>>;
  /** Names the worker in errors ("worker", "event worker"). */
  readonly label: string;
  /** 'capture': keep the last 8 000 characters of stderr for errors and reports; 'inherit': print it as it comes. */
  readonly stderr: 'capture' | 'inherit';
  /** Messages that stream (records, history): handed over as they come, never kept for `next`. */
  readonly streamed: (message: Message) => boolean;
  /** A message that reports the worker failed: its text, or undefined. `next` fails at once on one. */
  readonly failure?: (message: Message) => string | undefined;
}

/**
 * A chaos worker process spoken to in JSON lines: commands on its stdin, messages on its stdout. Streamed messages
 * go to `onStreamed`; the others wait in a mailbox for `next(kind)`, a message of that kind being one with that key.
 * The process is killed if this one exits first.
 */
export class JsonLineWorker<Command, Message extends object> {
  private readonly child: ChildProcess;
  private readonly forgetOnExit: () => void;
  private readonly mailbox: Message[] = [];
  exited = false;
  /** The end of its stderr, with `stderr: 'capture'`. */
  stderr = '';

  constructor(
    private readonly options: JsonLineWorkerOptions<Message>,
    onStreamed: (message: Message) => void,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', options.script], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', options.stderr === 'capture' ? 'pipe' : 'inherit'],
    });
    this.forgetOnExit = onProcessExit(() => killQuietly(this.child.pid));
    this.child.on('exit', () => {
      this.exited = true;
      this.forgetOnExit();
    });
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-8000)));
    // A killed worker's pipe may close mid-write: stdin errors are its death, not ours.
    this.child.stdin!.on('error', () => {});
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as Message;
      if (options.streamed(message)) onStreamed(message);
      else this.mailbox.push(message);
    });
  }

  send(command: Command): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  kill(signal?: NodeJS.Signals): void {
    if (!this.exited) killQuietly(this.child.pid, signal);
  }

  /** The first message of this kind not yet taken; fails at once if the worker exits first or reports a failure. */
  async next<K extends string>(kind: K, timeoutMs: number): Promise<Extract<Message, Record<K, unknown>>> {
    const { label, failure } = this.options;
    return waitFor(
      `${label} message '${kind}'`,
      () => {
        const failed = failure && this.mailbox.map(failure).find((text) => text !== undefined);
        if (failed !== undefined) throw new Error(`the ${label} failed: ${failed}`);
        const index = this.mailbox.findIndex((m) => kind in m);
        if (index >= 0) return this.mailbox.splice(index, 1)[0] as Extract<Message, Record<K, unknown>>;
        if (this.exited) throw new Error(`the ${label} exited before sending '${kind}'${this.stderr ? `\n${this.stderr.slice(-2000)}` : ''}`);
        return undefined;
      },
      { timeoutMs, intervalMs: 20 },
    );
  }
}
