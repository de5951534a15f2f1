import { readFile } from 'node:fs/promises';

/** The last lines of a member's log, for error messages; never throws. */
export async function logTail(file: string, lines = 25): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch (error) {
    return `(no log at ${file}: ${(error as Error).message})`;
  }
}
