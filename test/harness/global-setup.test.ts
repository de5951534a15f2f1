import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * A machine with no way to run etcd gets one message and exit code 1 from `vitest run`, not a failure per
 * test file. Shown here with an empty PATH and ETCD_DRIVER=process, so that the answer does not depend on
 * whether this machine happens to run a Docker engine (the unforced choice would then use containers).
 */
const root = resolve(import.meta.dirname, '../..');
const emptyBin = mkdtempSync(join(tmpdir(), 'no-etcd-bin-'));
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

function vitestWithoutEtcd(files: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: emptyBin, ETCD_DRIVER: 'process' };
  delete env.ETCD_BIN;
  const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'cluster', ...files], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

describe('the cluster tests without etcd', () => {
  it('end with one message naming the ways to get etcd, and exit code 1', { timeout: 60_000 }, async () => {
    const result = await vitestWithoutEtcd(['test/harness/harness.test.ts', 'test/contract']);
    expect(result.code).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output.match(/No etcd to start a cluster from/g)).toHaveLength(1);
    expect(result.stderr).toContain('no `etcd` on PATH');
    for (const way of ['apt-get install etcd-server', 'brew install etcd', 'ETCD_BIN', 'Docker', 'ETCD_IMAGE', 'docker compose up']) {
      expect(result.stderr).toContain(way);
    }
    // No test file ran, so none failed on its own.
    expect(output).not.toMatch(/FAIL|ENOENT|Test Files/);
  });
});
