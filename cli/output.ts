/**
 * Standard output for commands that print as they read. Each chunk waits for the stream to drain when its buffer
 * is full, so a listing of any length holds one page in memory even when stdout is slower than etcd (a pipe on
 * macOS, a terminal, `| less`). A reader that goes away (`| head`) closes it: `closed` turns true and the command
 * stops reading instead of dying of EPIPE.
 */
export class Output {
  private isClosed = false;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly stream: NodeJS.WritableStream = process.stdout) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // EPIPE and friends: nobody reads any more. Anything printed from now on would be lost anyway.
      this.isClosed = true;
      for (const wake of this.waiters) wake();
      if (error.code !== 'EPIPE') process.stderr.write(`etcd-lease: stdout: ${error.message}\n`);
    });
  }

  /** True once the reader has gone away: stop producing. */
  get closed(): boolean {
    return this.isClosed;
  }

  async write(text: string): Promise<void> {
    if (this.isClosed || text.length === 0) return;
    if (this.stream.write(text)) return;
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        this.stream.off('drain', wake);
        resolve();
      };
      this.waiters.add(wake);
      this.stream.once('drain', wake);
    });
  }
}
