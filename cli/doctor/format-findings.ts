import type { Finding, FindingLevel } from './finding.js';

const WIDTH = 80;
const LABEL: Record<FindingLevel, string> = { ok: 'ok', note: 'note', warn: 'WARN', fail: 'FAIL' };
/** Level (5) and check (14) columns; the text wraps in the rest. */
const INDENT = 19;

/** The human report: one block per finding, wrapped at 80 columns, and a last line that says what to do. */
export function formatFindings(findings: readonly Finding[], heading: string): string {
  const lines = [...wrap(heading, WIDTH, ''), ''];
  for (const finding of findings) {
    const first = `${LABEL[finding.level].padEnd(5)}${finding.check.padEnd(INDENT - 5)}`;
    lines.push(...wrap(finding.summary, WIDTH, ' '.repeat(INDENT), first));
    if (finding.why !== undefined) lines.push(...wrap(`why: ${finding.why}`, WIDTH, ' '.repeat(INDENT + 5), ' '.repeat(INDENT)));
    if (finding.fix !== undefined) lines.push(...wrap(`fix: ${finding.fix}`, WIDTH, ' '.repeat(INDENT + 5), ' '.repeat(INDENT)));
  }
  const count = (level: FindingLevel): number => findings.filter((f) => f.level === level).length;
  const fails = count('fail');
  const warns = count('warn');
  lines.push('');
  lines.push(
    fails + warns === 0
      ? `Nothing to fix (${count('ok')} ok, ${count('note')} note${count('note') === 1 ? '' : 's'}).`
      : `${fails + warns} to fix: ${fails} FAIL, ${warns} WARN (${count('ok')} ok, ${count('note')} note${count('note') === 1 ? '' : 's'}).`,
  );
  return lines.join('\n');
}

/**
 * Words on lines of at most `width` columns, the first line starting with `first` and the rest with `indent`. A
 * word longer than a line (a URL, a key) is cut, so no line is ever wider than `width`.
 */
export function wrap(text: string, width: number, indent: string, first: string = indent): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  const room = (): number => width - line.length;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let rest = word;
    while (rest !== '') {
      const sep = empty ? '' : ' ';
      if (rest.length + sep.length <= room()) {
        line += sep + rest;
        empty = false;
        rest = '';
      } else if (empty) {
        const fits = Math.max(1, room());
        line += rest.slice(0, fits);
        rest = rest.slice(fits);
        lines.push(line);
        line = indent;
      } else {
        lines.push(line);
        line = indent;
        empty = true;
      }
    }
  }
  if (!empty || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}
