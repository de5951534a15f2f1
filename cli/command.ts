/** One `etcd-lease` subcommand. Each lives in its own file under `commands/`. */
export interface Command {
  readonly name: string;
  /** One line for the command list of `etcd-lease --help`. */
  readonly summary: string;
  /** Full text of `etcd-lease <name> --help`. */
  readonly help: string;
  /** Resolves to the exit code; throws `UsageError` for a bad command line, anything else for a failure. */
  run(argv: string[]): Promise<number>;
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function printError(line: string): void {
  process.stderr.write(`${line}\n`);
}
