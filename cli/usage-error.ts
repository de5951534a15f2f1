/** Exit codes of `etcd-lease`: scripts branch on these, so they never change meaning. */
export const EXIT_OK = 0;
/** etcd could not be reached, refused the request, or the operation did not do what was asked. */
export const EXIT_FAILED = 1;
/** The command line was wrong: unknown flag, missing argument, unreadable certificate file. */
export const EXIT_USAGE = 2;

/**
 * The command line cannot be run as given. Caught in `main.ts`, printed with a pointer to `--help`,
 * and turned into exit code 2 — kept apart from operational failures (exit 1) so a script can tell
 * "I called it wrong" from "etcd said no".
 */
export class UsageError extends Error {
  readonly code = 'EUSAGE' as const;

  constructor(
    message: string,
    /** The command whose `--help` explains the right usage. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export function isUsageError(value: unknown): value is UsageError {
  return value instanceof UsageError;
}
