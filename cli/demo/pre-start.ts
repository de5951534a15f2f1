import type { RunningFrom } from '../../launcher/no-etcd-error.js';
import { NUL_SHOWN, readableKey, shellWord } from '../key-text.js';
import { columnsOf } from './screen-fit.js';

/** Lines printed before the live view fit a terminal of 80 columns without wrapping mid-word. */
export const PRE_START_COLUMNS = 79;

/**
 * What the demo says before the workers start: the key shape, the run's prefix, and the command that lists its keys
 * meanwhile, as whoever runs it can type it — `npm run cli -- list` in a clone (which has no `etcd-lease` on PATH),
 * `npx etcd-lease list` where the package is installed. The command is split into shell continuation lines so a
 * copy of it still runs.
 */
export function preStartLines(input: { firstKey: string; prefix: string; hosts: readonly string[]; from: RunningFrom }): string[] {
  const cli = input.from === 'clone' ? ['npm', 'run', 'cli', '--', 'list'] : ['npx', 'etcd-lease', 'list'];
  // A local cluster's endpoints are plain http on loopback: host:port is the same endpoint, shorter.
  const endpoints = input.hosts.map((h) => h.replace(/^http:\/\//, '')).join(',');
  return [
    ...wrapWords(`keys ${readableKey(input.firstKey)} … (${NUL_SHOWN}: Mastra's NUL between resourceId and threadId)`),
    ...wrapWords(`run prefix ${shellWord(input.prefix)}`),
    'to list its keys while it runs:',
    ...commandLines([...cli, '--prefix', shellWord(input.prefix)], ['--endpoints', shellWord(endpoints)]),
  ];
}

/** `text` broken between words into lines of at most `width` columns; later lines indented by two spaces. */
export function wrapWords(text: string, width = PRE_START_COLUMNS): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && columnsOf(next) > width) {
      lines.push(line);
      line = `  ${word}`;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** A shell command of word groups, indented, continued with ` \` where the next group would pass `width`. */
function commandLines(...groups: string[][]): string[] {
  const lines: string[] = [];
  let line = '  ';
  for (const group of groups) {
    const text = group.join(' ');
    if (line.trim() !== '' && columnsOf(`${line} ${text} \\`) > PRE_START_COLUMNS) {
      lines.push(`${line} \\`);
      line = `    ${text}`;
    } else line = line.trim() === '' ? `  ${text}` : `${line} ${text}`;
  }
  lines.push(line);
  return lines;
}
