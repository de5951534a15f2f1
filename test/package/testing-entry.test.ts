import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithout, execFileAsync, install, pack, root, runScript, typeCheck } from './support/packed-app.js';

// `etcd-lease-provider/testing` as users get it: packed, unpacked into a throwaway app, loaded with import and with
// require, type-checked, and the documented example (examples/testing-your-app) run in that app against the package.
// The scripts start their own etcd members, as the global setup chose (ETCD_DRIVER/ETCD_BIN/ETCD_IMAGE).
let app: string;
let tarball: string;

beforeAll(async () => {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  app = mkdtempSync(join(root, '.tmp', 'packed-testing-'));
  tarball = await pack(app);
  install(tarball, app);
}, 400_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

// One member with faults: a provider's calls are recorded, the member is paused and resumed, the checker judges. The
// script must then exit by itself: a stopped cluster leaves nothing open (a proxy socket reset after it had forwarded a
// FIN once kept the process alive at exit, spinning, until the test killed it: launcher/network/reset-socket.ts).
const probe = `
  async function main() {
    const cluster = await startEtcdCluster({ members: 1 });
    try {
      const provider = recordLeaseCalls(new EtcdLeaseProvider({ hosts: cluster.endpoints(), prefix: 'packed-testing/' }), { client: 'probe' });
      const first = await provider.acquireLease('k', 'A', 10000);
      const second = await provider.acquireLease('k', 'B', 10000);
      await cluster.pause(0);
      const paused = cluster.members()[0].state;
      await cluster.resume(0);
      await cluster.waitHealthy();
      const renewed = await provider.renewLease('k', 'A', 10000);
      await provider.close();
      const verdict = checkLeaseHistory(provider.history);
      console.log(JSON.stringify({ first: first.acquired, second: second.acquired, paused, renewed, ok: verdict.ok, calls: verdict.calls.total, instance: provider instanceof EtcdLeaseProvider }));
    } finally {
      await cluster.stop();
    }
  }
  main();
`;
const expected = { first: true, second: false, paused: 'paused', renewed: true, ok: true, calls: 3, instance: true };

describe("'etcd-lease-provider/testing' from the packed package", () => {
  it('starts a cluster, faults a member, records and checks lease calls, from an ESM app', async () => {
    const source = `import { startEtcdCluster, recordLeaseCalls, checkLeaseHistory } from 'etcd-lease-provider/testing';\nimport { EtcdLeaseProvider } from 'etcd-lease-provider';\n${probe}`;
    expect(await runScript(app, 'testing.mjs', source, {}, 60_000)).toEqual(expected);
  }, 90_000);

  it('the same from a CommonJS app', async () => {
    const source = `const { startEtcdCluster, recordLeaseCalls, checkLeaseHistory } = require('etcd-lease-provider/testing');\nconst { EtcdLeaseProvider } = require('etcd-lease-provider');\n${probe}`;
    expect(await runScript(app, 'testing.cjs', source, {}, 60_000)).toEqual(expected);
  }, 90_000);

  it('needs neither testcontainers nor a test runner with etcd processes, and the root entry never loads it', async () => {
    const project = appWithout(tarball, ['etcd3', 'cockatiel', '@opentelemetry/api']);
    try {
      const source = `
        import * as testing from 'etcd-lease-provider/testing';
        const cluster = await testing.startEtcdCluster({ members: 1, driver: 'process' });
        const endpoints = cluster.endpoints().length;
        await cluster.stop();
        console.log(JSON.stringify({ endpoints, exports: Object.keys(testing).sort() }));
      `;
      expect(await runScript(project.dir, 'bare.mjs', source, {}, 60_000)).toEqual({
        endpoints: 1,
        exports: [
          'FAULT_KINDS',
          'InvalidHistoryError',
          'NoEtcdError',
          'assembleEventHistory',
          'buildEtcdImage',
          'checkEventHistory',
          'checkLeaseHistory',
          'describeFault',
          'formatEventViolations',
          'judgeLeaseHistory',
          'machineClock',
          'recordLeaseCalls',
          'recordPubSub',
          'runComposedFaults',
          'startEtcdCluster',
          'useEtcdCluster',
        ],
      });
      const dist = join(project.dir, 'node_modules', 'etcd-lease-provider', 'dist');
      for (const file of ['index.js', 'index.cjs', 'mastra/index.js', 'mastra/index.cjs']) {
        expect(readFileSync(join(dist, file), 'utf8')).not.toMatch(/testcontainers|startEtcdCluster/);
      }
    } finally {
      project.remove();
    }
  }, 90_000);

  it('type-checks with skipLibCheck: false from ESM and CommonJS', async () => {
    const project = appWithout(tarball, ['etcd3', 'cockatiel', '@opentelemetry/api', '@types/node']);
    try {
      writeFileSync(
        join(project.dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
          files: ['esm.mts', 'cjs.cts'],
        }),
      );
      const use = `
        // A runner's hooks, as vitest, jest and mocha hand them out (no runner is installed here).
        const hooks = { beforeAll: (fn: () => Promise<void>, timeoutMs?: number) => void [fn, timeoutMs], afterAll: (fn: () => Promise<void>) => void fn };
        const etcd: EtcdClusterFixture = useEtcdCluster(hooks, { members: 3, quotaBackendBytes: 16 * 1024 * 1024 });
        export async function faults(cluster: EtcdTestCluster): Promise<LeaseHistoryVerdict> {
          const loss: QuorumLoss = await cluster.loseQuorum();
          await loss.restore();
          await cluster.cutClient(0);
          await cluster.setClientLatency(1, 200, 50);
          await cluster.fillDisk();
          await cluster.freeDisk();
          const history: RecordedOp[] = [];
          return checkLeaseHistory(history, { maxStallMs: 5000 });
        }
        void etcd;
      `;
      const imports = `import { useEtcdCluster, checkLeaseHistory, type EtcdClusterFixture, type EtcdTestCluster, type LeaseHistoryVerdict, type QuorumLoss, type RecordedOp } from 'etcd-lease-provider/testing';\n`;
      writeFileSync(join(project.dir, 'esm.mts'), imports + use);
      writeFileSync(join(project.dir, 'cjs.cts'), imports + use);
      expect(await typeCheck(project.dir)).toBe('');
    } finally {
      project.remove();
    }
  }, 60_000);

  it('runs the documented example, examples/testing-your-app, against the packed package: three Mastra processes, the leader killed, a member paused', async () => {
    const example = join(app, 'example');
    cpSync(join(root, 'examples', 'testing-your-app'), example, { recursive: true });
    // A config of the app's own: without one, vitest would find the repository's further up.
    writeFileSync(join(example, 'vitest.config.mjs'), 'export default {};\n');
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const run = await execFileAsync(process.execPath, [vitest, 'run', '--root', example, '--config', 'vitest.config.mjs', 'chaos.test.ts'], {
      cwd: example,
      encoding: 'utf8',
      timeout: 240_000,
      killSignal: 'SIGKILL',
    }).then(
      ({ stdout }) => ({ ok: true, stdout }),
      (error: { stdout?: string; stderr?: string }) => ({ ok: false, stdout: `${error.stdout}\n${error.stderr}` }),
    );
    console.info(run.stdout);
    expect(run.ok, run.stdout).toBe(true);
    expect(run.stdout).toMatch(/1 passed/);
    expect(run.stdout).toMatch(/0 overlaps, 0 fencing violations/);
  }, 300_000);
});
