import { printError } from './command.js';
import { escapedKeyGuess, quote, shellWord } from './key-text.js';

/**
 * `get 'user-1\u0000thread-4'` or `release 'user-1\u0000thread-4' …` names the key with a backslash in it, which is
 * free — and for `release`, "already free" then reads as if the thread's lease had gone while it is still held. When
 * the key as typed was free and has an escape, a note says so, and whether the key the user most likely meant (the
 * escape decoded) is held. On stderr: stdout stays what a script parses, and the exit code stays what it was for the
 * key as given.
 */
export async function noteEscapedKey(command: 'get' | 'release', keyArg: string, isHeld: (key: string) => Promise<boolean>): Promise<void> {
  const meant = escapedKeyGuess(keyArg);
  if (meant === undefined) return;
  const held = await isHeld(meant);
  const again = command === 'get' ? `etcd-lease get ${shellWord(quote(meant))}` : `etcd-lease release ${shellWord(quote(meant))} with the same flags`;
  printError(
    `note: KEY was taken literally, backslash included. ${held ? `A lease is held at ${quote(meant)}` : `${quote(meant)} is free too`}; ` +
      `keys with escapes (a NUL, as in Mastra's thread keys) are passed JSON-quoted: ${again}`,
  );
}
