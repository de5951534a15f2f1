import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { REPO_ROOT, cleanEnv, runCli, type CliResult } from './support/cli-process.js';

// What the README gives someone with a clone: `npm run cli -- <command>` runs the CLI from its sources (no build,
// no bin link), reading the same ETCD_* settings as the library; and the demo without etcd says what to do in a clone.
const etcd = useEtcdCluster();
const emptyBin = mkdtempSync(join(tmpdir(), 'clone-no-etcd-'));
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

/** `npm run -s cli -- ARGS` in the repository, with this test's Node first on PATH (npm runs the script with it). */
function npmRunCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = spawn('npm', ['run', '--silent', 'cli', '--', ...args], {
    cwd: REPO_ROOT,
    env: { ...env, PATH: [dirname(process.execPath), env.PATH ?? ''].join(delimiter) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

describe('the CLI from a clone', () => {
  it('npm run cli -- --help prints the usage', async () => {
    const result = await npmRunCli(['--help'], cleanEnv());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: etcd-lease <command>/);
  });

  it("npm run cli -- list, where ETCD_PREFIX names the app's prefix (as in its pod), lists the app's leases", async () => {
    const prefix = etcd.uniquePrefix();
    const provider = etcd.provider({ prefix });
    await provider.acquireLease('user-1\u0000thread-1', 'run-a', 15_000);
    const env = cleanEnv({ ETCD_ENDPOINTS: etcd.cluster.endpoints().join(','), ETCD_PREFIX: prefix });
    const result = await npmRunCli(['list', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ key: 'user-1\u0000thread-1', owner: 'run-a' }]);
  });

  it("the demo without etcd names a clone's ways to get one, as a plain message", async () => {
    const env = cleanEnv({ PATH: emptyBin, ETCD_DRIVER: 'process' });
    delete env.ETCD_BIN;
    const result = await runCli(['demo', '--duration', '3'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^No etcd to start a cluster from \(no `etcd` on PATH/);
    for (const way of ['apt-get install etcd-server', 'bash launcher/build-etcd-image.sh', 'docker compose up -d']) expect(result.stderr).toContain(way);
    expect(result.stderr).not.toContain('NoEtcdError');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
