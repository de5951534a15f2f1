import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { cleanEnv, REPO_ROOT } from './support/cli-process.js';
import { summaryFigures } from './support/demo-summary.js';

/**
 * The demo in a real terminal of 80×24 (tmux, on a server of its own): what a person sees, read back with
 * capture-pane. Needs tmux (`apt-get install tmux`).
 */
const socket = `etcd-lease-demo-test-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'etcd-lease-demo-tty-'));
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env: cleanEnv() });
const pane = (): string => tmux('capture-pane', '-p', '-t', 'demo');
const HEADING = /^etcd-lease demo\b/;

afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the demo in an 80×24 terminal', () => {
  it('redraws in place (one heading on screen and in the scrollback, no line wider than the screen) and keeps the Ctrl-C message visible', async () => {
    const command = `${process.execPath} --import tsx cli/main.ts demo --duration 40 --report ${join(dir, 'report.html')}; echo "EXITED $?"; sleep 600`;
    tmux('new-session', '-d', '-s', 'demo', '-x', '80', '-y', '24', '-c', REPO_ROOT, command);

    await waitFor('the first fault on the live screen', () => (pane().includes('fault: killed leader') ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });
    const live = pane().split('\n');
    expect(live.filter((line) => HEADING.test(line))).toHaveLength(1);
    expect(live.every((line) => [...line].length <= 80)).toBe(true);

    tmux('send-keys', '-t', 'demo', 'C-c');
    await waitFor('the Ctrl-C message on the live screen', () => (pane().includes('stopping early: releasing leases') ? true : undefined), { timeoutMs: 5000, intervalMs: 100 });
    await waitFor('the demo to exit', () => (pane().includes('EXITED') ? true : undefined), { timeoutMs: 60_000, intervalMs: 200 });

    const history = tmux('capture-pane', '-p', '-S', '-', '-t', 'demo');
    expect(history).toMatch(/^EXITED 0$/m);
    // The frames lived on the alternate screen; the scrollback holds the last one, once, with the message in it.
    expect(history.split('\n').filter((line) => HEADING.test(line))).toHaveLength(1);
    expect(history).toContain('stopping early: releasing leases');
    const summary = history.split('\n').find((line) => line.startsWith('summary: ')) ?? '';
    expect(summaryFigures(summary).overlaps).toBe(0);
  }, 150_000);
});
