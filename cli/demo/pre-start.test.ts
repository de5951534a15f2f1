import { describe, expect, it } from 'vitest';
import { PRE_START_COLUMNS, preStartLines, wrapWords } from './pre-start.js';
import { columnsOf } from './screen-fit.js';

const local = ['http://127.0.0.1:40001', 'http://127.0.0.1:40002', 'http://127.0.0.1:40003'];
const prefix = 'etcd-lease-demo/build-host-12345-a1b2c3/';
const firstKey = 'demo-user\u0000thread-1';

/** The command as a shell reads it: continuation lines joined. */
const command = (lines: readonly string[]): string => lines.slice(lines.findIndex((l) => /^ {2}np[mx] /.test(l))).map((l) => l.replace(/ \\$/, '').trim()).join(' ');

describe('preStartLines', () => {
  it('fits 80 columns (no line over 79), breaking only between words', () => {
    for (const from of ['clone', 'package'] as const) {
      for (const hosts of [local, ['https://etcd-0.etcd.platform.svc.cluster.local:2379', 'https://etcd-1.etcd.platform.svc.cluster.local:2379']]) {
        const lines = preStartLines({ firstKey, prefix, hosts, from });
        for (const line of lines) {
          // A single endpoint list longer than a line cannot be broken: only that word may pass the edge.
          if (columnsOf(line) > PRE_START_COLUMNS) expect(line.trim().split(' ').length, line).toBeLessThanOrEqual(3);
        }
        if (hosts === local) for (const line of lines) expect(columnsOf(line), line).toBeLessThanOrEqual(PRE_START_COLUMNS);
      }
    }
  });

  it('from a clone the list command is `npm run cli -- list` (a clone has no etcd-lease on PATH); installed, `npx etcd-lease list`', () => {
    const clone = preStartLines({ firstKey, prefix, hosts: local, from: 'clone' });
    expect(command(clone)).toBe(`npm run cli -- list --prefix ${prefix} --endpoints 127.0.0.1:40001,127.0.0.1:40002,127.0.0.1:40003`);
    expect(clone.join('\n')).not.toMatch(/(^|\s)etcd-lease list/);
    const installed = preStartLines({ firstKey, prefix, hosts: local, from: 'package' });
    expect(command(installed)).toMatch(/^npx etcd-lease list --prefix /);
  });

  it('keeps the scheme of a TLS endpoint, and quotes a prefix the shell would split', () => {
    const lines = preStartLines({ firstKey, prefix: 'my demo/', hosts: ['https://etcd-0:2379'], from: 'package' });
    expect(command(lines)).toBe("npx etcd-lease list --prefix 'my demo/' --endpoints https://etcd-0:2379");
  });

  it('shows the NUL of the key as \\0 and says what it is', () => {
    const text = preStartLines({ firstKey, prefix, hosts: local, from: 'clone' }).join(' ');
    expect(text).toContain('demo-user\\0thread-1');
    expect(text).toContain("(\\0: Mastra's NUL between resourceId and threadId)");
  });
});

describe('wrapWords', () => {
  it('breaks at spaces only, indents continuation lines, and keeps every word', () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const lines = wrapWords(text, 30);
    for (const line of lines) expect(columnsOf(line)).toBeLessThanOrEqual(30);
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true);
    expect(lines.join(' ').split(/\s+/).filter(Boolean)).toEqual(text.split(' '));
  });
});
