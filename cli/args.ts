import { UsageError } from './usage-error.js';

/**
 * Runs a `node:util` parseArgs call (strict, as every command uses it) and turns its errors —
 * unknown flag, missing value — into `UsageError`s naming the command. `--help` never reaches
 * here: main.ts answers it before a command parses anything.
 */
export function parsing<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message, command);
  }
}

/** Exactly `names.length` positionals, in order. */
export function positionals(command: string, given: string[], names: string[]): string[] {
  if (given.length !== names.length) {
    const expected = names.length === 0 ? 'no arguments' : names.map((n) => n.toUpperCase()).join(' ');
    throw new UsageError(`expected ${expected}, got ${given.length === 0 ? 'none' : given.map((g) => JSON.stringify(g)).join(' ')}`, command);
  }
  return given;
}

/** A whole number from a flag, within bounds. */
export function integerFlag(command: string, flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag}: must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`, command);
  }
  return n;
}
