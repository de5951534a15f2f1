import { UsageError } from './usage-error.js';

/**
 * Lease keys are arbitrary strings: Mastra's are `resourceId + "\u0000" + threadId`, and owners are
 * long JSON tokens. Printed raw, a NUL or an escape sequence would corrupt the terminal or let a
 * key impersonate another line, so text output always shows them as JSON string literals.
 *
 * JSON.stringify escapes C0 controls but leaves C1 controls (U+0080–U+009F, which include a
 * one-character CSI), line/paragraph separators and bidi overrides as they are: those are escaped
 * too, still as `\uXXXX`, so the result remains a valid JSON string that `parseTextArg` reads back.
 */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function quote(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** How `readableKey` shows a NUL: `\0`, as C and most languages write it; plain ASCII, so every font has it. */
export const NUL_SHOWN = '\\0';

/**
 * A key for people to read (the demo's live view and report): `demo-user\0thread-1`, a NUL shown as `\0`. Only when
 * that cannot be misread: a key with anything else `quote` would escape (a backslash of its own above all, or a
 * quote) is shown as `quote` shows it. Commands whose output is pasted back (`list`, `get`) keep `quote`.
 */
export function readableKey(text: string): string {
  const rest = text.replaceAll('\u0000', '');
  if (quote(rest) !== `"${rest}"`) return quote(text);
  return text.replaceAll('\u0000', NUL_SHOWN);
}

/**
 * A key or owner given on the command line. A shell cannot pass a NUL byte in an argument, so an
 * argument that is a JSON string literal (starts and ends with `"`, as `list` prints keys) is
 * decoded; anything else is taken literally. A key that itself starts and ends with `"` must
 * therefore be given JSON-quoted. Keys and owners cannot be empty; run metadata can (`allowEmpty`).
 */
export function parseTextArg(name: string, arg: string, options: { allowEmpty?: boolean } = {}): string {
  if (arg.length >= 2 && arg.startsWith('"') && arg.endsWith('"')) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(arg);
    } catch (error) {
      throw new UsageError(`${name}: looks JSON-quoted but is not a valid JSON string (${(error as Error).message})`);
    }
    if (typeof decoded !== 'string') throw new UsageError(`${name}: must decode to a string`);
    arg = decoded;
  }
  if (arg.length === 0 && options.allowEmpty !== true) throw new UsageError(`${name}: must not be empty`);
  return arg;
}

/**
 * The key a user most likely meant when they typed a JSON escape into an unquoted argument (`user-1\u0000thread-4`
 * in single quotes reaches the CLI as backslash, u, 0, 0, 0, 0), or `\0` as the demo shows a NUL: the argument
 * decoded as the inside of a JSON string.
 * Undefined when the argument has no escape, is already JSON-quoted, or does not decode.
 */
export function escapedKeyGuess(arg: string): string | undefined {
  if (arg.startsWith('"') && arg.endsWith('"')) return undefined;
  if (!/\\(u[0-9a-fA-F]{4}|[0bfnrt"\\/])/.test(arg)) return undefined;
  try {
    // `\0` as the demo shows a NUL; JSON itself has no such escape.
    const decoded: unknown = JSON.parse(`"${arg.replace(/(?<!\\)((?:\\\\)*)\\0(?![0-9])/g, '$1\\u0000')}"`);
    return typeof decoded === 'string' && decoded !== arg ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** `text` as one POSIX shell word, for a command line printed in a hint. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
