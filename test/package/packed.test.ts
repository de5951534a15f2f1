import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { useEtcdCluster } from '../support/etcd-fixture.js';
import { engineWarnings, packageNodeRange, satisfiesNode } from './support/engines.js';
import { appWithout, execFileAsync, install, pack, root, runScript } from './support/packed-app.js';

// The published shape: `npm pack` the package, unpack it into a throwaway app's node_modules and load
// it the way users do — `import` from an ESM app and `require` from a CommonJS one. The app lives under
// the repository so its dependencies (etcd3, cockatiel, @mastra/core) resolve from the repository's node_modules;
// the project without the optional peer lives outside it.
let app: string;
let tarball: string;
const etcd = useEtcdCluster();

beforeAll(async () => {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  app = mkdtempSync(join(root, '.tmp', 'packed-app-'));
  tarball = await pack(app);
  install(tarball, app);
}, 120_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

const probe = `
  const ok = typeof EtcdLeaseProvider === 'function' && typeof isLeaseError === 'function';
  const p = new EtcdLeaseProvider({ hosts: '127.0.0.1:1' });
  const methods = ['acquireLease', 'getLeaseOwner', 'releaseLease', 'renewLease', 'transferLease'].every((m) => typeof p[m] === 'function');
  p.close().then(() => console.log(JSON.stringify({ ok, methods })));
`;

describe('the packed package', () => {
  it('loads with import from an ESM app', async () => {
    expect(await runScript(app, 'esm.mjs', `import { EtcdLeaseProvider, isLeaseError } from 'etcd-lease-provider';\n${probe}`)).toEqual({ ok: true, methods: true });
  });

  it('loads with require from a CommonJS app', async () => {
    expect(await runScript(app, 'cjs.cjs', `const { EtcdLeaseProvider, isLeaseError } = require('etcd-lease-provider');\n${probe}`)).toEqual({ ok: true, methods: true });
  });

  it("exposes EtcdPubSub at 'etcd-lease-provider/mastra' to import and require: a Mastra PubSub and a lease provider", async () => {
    const probePubSub = `
      const { PubSub, isLeaseProvider } = M;
      const pubsub = new EtcdPubSub({ hosts: '127.0.0.1:1' });
      const ok = pubsub instanceof PubSub && isLeaseProvider(pubsub) && isLeaseProvider(pubsub.getLeaseProvider())
        && typeof streamPartsWriteBehind === 'function' && pubsub.supportedModes.includes('pull');
      pubsub.close().then(() => console.log(JSON.stringify({ ok })));
    `;
    expect(await runScript(app, 'pubsub.mjs', `import { EtcdPubSub, streamPartsWriteBehind } from 'etcd-lease-provider/mastra';\nimport * as M from '@mastra/core/events';\n${probePubSub}`)).toEqual({ ok: true });
    expect(await runScript(app, 'pubsub.cjs', `const { EtcdPubSub, streamPartsWriteBehind } = require('etcd-lease-provider/mastra');\nconst M = require('@mastra/core/events');\n${probePubSub}`)).toEqual({ ok: true });
  });

  it("exposes withEtcdLeases at 'etcd-lease-provider/mastra' to import and require", async () => {
    const probeMastra = `
      const { EventEmitterPubSub, isLeaseProvider } = M;
      const wrapped = withEtcdLeases(new EventEmitterPubSub(), { hosts: '127.0.0.1:1' });
      const ok = isLeaseProvider(wrapped) && typeof wrapped.getLeaseProvider === 'function';
      wrapped.close().then(() => console.log(JSON.stringify({ ok })));
    `;
    expect(await runScript(app, 'mastra.mjs', `import { withEtcdLeases } from 'etcd-lease-provider/mastra';\nimport * as M from '@mastra/core/events';\n${probeMastra}`)).toEqual({ ok: true });
    expect(await runScript(app, 'mastra.cjs', `const { withEtcdLeases } = require('etcd-lease-provider/mastra');\nconst M = require('@mastra/core/events');\n${probeMastra}`)).toEqual({ ok: true });
  });

  it('ships the etcd-lease CLI as an executable bin', () => {
    const bin = join(app, 'node_modules', 'etcd-lease-provider', 'dist', 'cli.js');
    expect(execFileSync(bin, ['--help'], { encoding: 'utf8' })).toContain('Usage: etcd-lease');
  });

  it('ships declarations for both module systems, every document in docs/, the license and the changelog; no sources, tools or source maps', () => {
    const files = execFileSync('find', ['.', '-type', 'f'], { cwd: join(app, 'node_modules', 'etcd-lease-provider'), encoding: 'utf8' });
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/index.d.cts');
    for (const doc of readdirSync(join(root, 'docs'))) expect(files).toContain(`./docs/${doc}`);
    for (const file of ['./LICENSE', './CHANGELOG.md', './README.md']) expect(files).toContain(file);
    for (const tree of ['test/', './src/', './cli/', './launcher/', './safety-checker/', './bench/', './examples/', 'docker-compose.yml']) expect(files).not.toContain(tree);
    expect(files).not.toMatch(/\.map$/m);
  });

  it('the installed CLI without etcd names only what its user has, as a plain message', async () => {
    // Outside the repository: no docker-compose.yml beside the package, and no testcontainers to resolve.
    const project = appWithout(tarball, ['etcd3', 'cockatiel', '@opentelemetry/api']);
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, PATH: join(project.dir, 'no-bin') };
      for (const name of Object.keys(env)) if (name.startsWith('ETCD_')) delete env[name];
      const cli = join(project.dir, 'node_modules', 'etcd-lease-provider', 'dist', 'cli.js');
      const result = await execFileAsync(process.execPath, [cli, 'demo', '--duration', '3'], { cwd: project.dir, env, encoding: 'utf8', timeout: 30_000 }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^No etcd to start a local cluster from \(no `etcd` on PATH\)\. Either of these works:/);
      for (const way of ['apt-get install etcd-server', 'brew install etcd', 'ETCD_BIN', 'ETCD_ENDPOINTS=', 'etcd-lease demo']) expect(result.stderr).toContain(way);
      for (const absent of ['NoEtcdError', 'docker compose', 'this repository', 'build-etcd-image', 'testcontainers', 'devDependency', 'npm start']) {
        expect(result.stderr).not.toContain(absent);
      }
    } finally {
      project.remove();
    }
  });
});

/**
 * What npm rightly says about engines on the Node these tests run on: nothing on a Node the package supports; on an
 * older one (the machine's own Node 20, say) a warning for this package, and only warnings that are true — each names
 * a package whose required Node this one is below.
 */
function expectEngineWarningsRightForThisNode(stderr: string): void {
  const warnings = engineWarnings(stderr);
  if (satisfiesNode(process.version, packageNodeRange(root))) {
    expect(warnings).toEqual([]);
    return;
  }
  expect(warnings.map((w) => w.pkg)).toContainEqual(expect.stringMatching(/^etcd-lease-provider@/));
  for (const warning of warnings) expect(satisfiesNode(process.version, warning.requiredNode), `${warning.pkg} requires ${warning.requiredNode}`).toBe(false);
}

describe('installing the packed package', () => {
  it('npm installs it into a new app on this Node: no engine warning on a supported Node, a true one below it, no other warning', async () => {
    // A real install: npm resolves the package's dependencies from the registry, as a user's npm does.
    const dir = mkdtempSync(join(tmpdir(), 'packed-install-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'new-app', version: '1.0.0', private: true, type: 'module' }));
      const { stderr } = await npmWithThisNode(['install', '--no-audit', '--no-fund', tarball], dir);
      expectEngineWarningsRightForThisNode(stderr);
      expect(otherWarnings(stderr)).toEqual([]);
      expect(await runScript(dir, 'load.mjs', `import { EtcdLeaseProvider } from 'etcd-lease-provider';\nconsole.log(JSON.stringify(typeof EtcdLeaseProvider));`)).toBe('function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("the repository's own dependency tree: no engine warning on a supported Node, a true one below it", async () => {
    const { stderr } = await npmWithThisNode(['install', '--dry-run', '--offline', '--no-audit', '--no-fund'], root);
    expectEngineWarningsRightForThisNode(stderr);
  }, 60_000);

  it('keeps what sideEffects: false promises: a tree-shaking bundle of the package still takes, renews and releases leases', async () => {
    const { build } = await import('esbuild');
    const external = ['etcd3', 'cockatiel', '@opentelemetry/api', '@mastra/core'];
    const bundle = (contents: string) =>
      build({ stdin: { contents, resolveDir: app, loader: 'js' }, bundle: true, write: false, platform: 'node', format: 'esm', treeShaking: true, external, logLevel: 'silent' }).then(
        (result) => result.outputFiles[0]!.text,
      );
    // A bare import keeps nothing: the bundler took the package at its word.
    expect((await bundle(`import 'etcd-lease-provider';\nimport 'etcd-lease-provider/mastra';`)).trim()).toBe('');
    const code = await bundle(`
      import { EtcdLeaseProvider, LeaseArgumentRangeError, isLeaseError } from 'etcd-lease-provider';
      const p = new EtcdLeaseProvider({ hosts: process.env.ETCD_ENDPOINTS.split(','), prefix: 'bundled/' + process.pid + '/' });
      const won = await p.acquireLease('k', 'a', 15000);
      const renewed = await p.renewLease('k', 'a', 15000);
      await p.releaseLease('k', 'a');
      const bad = await p.acquireLease('k', 'a', -1).catch((e) => e instanceof LeaseArgumentRangeError && isLeaseError(e));
      const owner = await p.getLeaseOwner('k');
      await p.close();
      console.log(JSON.stringify({ acquired: won.acquired, token: typeof won.fencingToken, renewed, bad, owner: owner ?? null }));
    `);
    const result = await runScript(app, 'bundled.mjs', code, { ETCD_ENDPOINTS: etcd.cluster.endpoints().join(',') });
    expect(result).toEqual({ acquired: true, token: 'string', renewed: true, bad: true, owner: null });
  }, 60_000);
});

/** npm, run by the Node running this test (CI runs this file on each Node line). */
function npmWithThisNode(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const env = { ...process.env, PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter) };
  return execFileAsync('npm', args, { cwd, env, encoding: 'utf8', timeout: 100_000 });
}

/**
 * npm's warnings other than the install-script advisory of npm ≥ 11.16, which lists every dependency with an install
 * script: here protobufjs (under etcd3), whose postinstall only checks the version scheme of packages that depend
 * on it. An app silences it with `"allowScripts": { "protobufjs": false }`; npm 10 (Node 22's own) prints nothing.
 */
function otherWarnings(stderr: string): string[] {
  const lines = stderr.split('\n').filter((line) => /\bwarn\b/i.test(line));
  const advisory = lines.filter((line) => line.includes('install-scripts'));
  const named = advisory.map((line) => /^npm warn install-scripts\s+(\S+)@/.exec(line)?.[1]).filter((name) => name !== undefined);
  expect(named.filter((name) => name !== 'protobufjs')).toEqual([]);
  // Engine warnings are judged on their own (expectEngineWarningsRightForThisNode).
  return lines.filter((line) => !line.includes('install-scripts') && !line.includes('EBADENGINE'));
}

/**
 * Every error class the reference documents (its error table, docs/reference.md) and their base: each must be one
 * class, exported by both entries. Read from the table, so a new error cannot be documented and not checked.
 */
const ERROR_CLASSES = [
  'LeaseError',
  ...[...readFileSync(join(root, 'docs/reference.md'), 'utf8').matchAll(/^\| `([A-Z]\w+Error)`(?: \/ `([A-Z]\w+Error)`)? \|/gm)].flatMap((m) => m.slice(1).filter(Boolean)),
];

// R is the root entry, M is 'etcd-lease-provider/mastra'. Each error is raised by one entry and tested against the
// other's classes: a publish of EtcdPubSub against a closed port (ELEASE_UNAVAILABLE), a call on a closed
// EtcdLeaseProvider (ELEASE_CLOSED), a bad EtcdPubSub option (ELEASE_INVALID_ARGUMENT).
const errorProbe = `
  const is = (value, Class) => typeof Class === 'function' && value instanceof Class;
  async function main() {
    const names = ${JSON.stringify(ERROR_CLASSES)};
    const missing = names.filter((n) => typeof R[n] !== 'function' || typeof M[n] !== 'function');
    const twoCopies = names.filter((n) => !missing.includes(n) && R[n] !== M[n]);
    const pubsub = new M.EtcdPubSub({ hosts: '127.0.0.1:1', deadlineMs: 300 });
    const published = await pubsub.publish('t', { type: 't', runId: 'r', data: {} }).then(() => undefined, (e) => e);
    await pubsub.close();
    const provider = new R.EtcdLeaseProvider({ hosts: '127.0.0.1:1' });
    await provider.close();
    const closed = await provider.acquireLease('k', 'o', 5000).then(() => undefined, (e) => e);
    let invalid;
    try { new M.EtcdPubSub({ hosts: '127.0.0.1:1', retentionMs: -1 }); } catch (e) { invalid = e; }
    console.log(JSON.stringify({
      missing,
      twoCopies,
      publish: [published?.code, is(published, R.EtcdUnavailableError), is(published, R.LeaseError), is(published, M.EtcdUnavailableError)],
      closed: [closed?.code, is(closed, M.ProviderClosedError), is(closed, M.LeaseError)],
      invalid: [invalid?.code, is(invalid, R.LeaseArgumentRangeError), R.isLeaseError(invalid)],
    }));
  }
  main();
`;

describe('one class per error across both entries of the packed package', () => {
  const expected = {
    missing: [],
    twoCopies: [],
    publish: ['ELEASE_UNAVAILABLE', true, true, true],
    closed: ['ELEASE_CLOSED', true, true],
    invalid: ['ELEASE_INVALID_ARGUMENT', true, true],
  };

  it('with import (ESM)', async () => {
    const source = `import * as R from 'etcd-lease-provider';\nimport * as M from 'etcd-lease-provider/mastra';\n${errorProbe}`;
    expect(await runScript(app, 'errors.mjs', source)).toEqual(expected);
  });

  it('with require (CommonJS)', async () => {
    const source = `const R = require('etcd-lease-provider');\nconst M = require('etcd-lease-provider/mastra');\n${errorProbe}`;
    expect(await runScript(app, 'errors.cjs', source)).toEqual(expected);
  });
});

describe('the root entry without the optional peer @mastra/core', () => {
  // The package's own dependencies (as npm would install them) and Node's types; no @mastra/core.
  const installed = ['etcd3', 'cockatiel', '@opentelemetry/api', '@types/node'];

  it('type-checks with skipLibCheck: false, from ESM and from CommonJS', async () => {
    const project = appWithout(tarball, installed);
    try {
      writeFileSync(
        join(project.dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
          files: ['esm.mts', 'cjs.cts'],
        }),
      );
      const use = `
        const provider = new EtcdLeaseProvider({ hosts: '127.0.0.1:2379', contractResults: true });
        const acquired: Promise<ContractAcquireResult> = provider.acquireLease('k', 'o', 15_000);
        const token = async (p: EtcdLeaseProvider): Promise<string | undefined> => { const won: AcquireResult = await p.acquireLease('k', 'o', 15_000); return won.acquired ? won.fencingToken.slice(0) : undefined; };
        const held: Promise<LeaseHandle> = provider.hold('k', 'o', 15_000, { timeoutMs: 1000 });
        export const isUnavailable = (e: unknown): boolean => e instanceof EtcdUnavailableError && isLeaseError(e);
        void acquired; void held; void token;
      `;
      writeFileSync(join(project.dir, 'esm.mts'), `import { EtcdLeaseProvider, EtcdUnavailableError, isLeaseError, type AcquireResult, type ContractAcquireResult, type LeaseHandle } from 'etcd-lease-provider';\n${use}`);
      writeFileSync(join(project.dir, 'cjs.cts'), `import { EtcdLeaseProvider, EtcdUnavailableError, isLeaseError, type AcquireResult, type ContractAcquireResult, type LeaseHandle } from 'etcd-lease-provider';\n${use}`);
      // The peer really is absent from this project.
      expect(() => execFileSync(process.execPath, ['-e', "require.resolve('@mastra/core/events')"], { cwd: project.dir, stdio: 'pipe' })).toThrow();
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const compiled = await execFileAsync(process.execPath, [tsc, '-p', project.dir], { encoding: 'utf8' }).then(
        ({ stdout }) => stdout,
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(compiled).toBe('');
    } finally {
      project.remove();
    }
  }, 60_000);
});

describe('the packed package under moduleResolution node10', () => {
  it('every entry of exports has types an older TypeScript setup finds (typesVersions)', async () => {
    // node10 reads no `exports`: a subpath's types come from typesVersions. Each subpath export must have a line there.
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const subpaths = Object.keys(manifest.exports).filter((entry) => entry !== '.' && !entry.endsWith('.json'));
    expect(subpaths).toContain('./mastra');
    const project = appWithout(tarball, ['etcd3', 'cockatiel', '@opentelemetry/api', '@types/node', '@mastra/core']);
    try {
      writeFileSync(
        join(project.dir, 'tsconfig.json'),
        // skipLibCheck: @mastra/core's own declarations do not type-check under node10; this checks that ours resolve.
        JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: true, noEmit: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', types: ['node'] }, files: ['use.ts'] }),
      );
      const imports = subpaths.map((entry, i) => `import * as entry${i} from 'etcd-lease-provider/${entry.slice(2)}';\nexport const names${i}: string[] = Object.keys(entry${i});`);
      writeFileSync(
        join(project.dir, 'use.ts'),
        [
          "import { EtcdLeaseProvider, type AcquireResult } from 'etcd-lease-provider';",
          "export const token = (r: AcquireResult): string | undefined => (r.acquired ? r.fencingToken : undefined);",
          "export const provider = (): EtcdLeaseProvider => new EtcdLeaseProvider({ hosts: '127.0.0.1:2379' });",
          ...imports,
        ].join('\n'),
      );
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const compiled = await execFileAsync(process.execPath, [tsc, '-p', project.dir], { encoding: 'utf8' }).then(
        ({ stdout }) => stdout,
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(compiled).toBe('');
    } finally {
      project.remove();
    }
  }, 60_000);
});

describe('waiting on the packed package, both result shapes', () => {
  it('waitForLease and hold resolve on a real cluster whatever contractResults says, one write each', async () => {
    const source = `
      import { EtcdLeaseProvider } from 'etcd-lease-provider';
      import { Etcd3 } from 'etcd3';
      const hosts = process.env.ETCD_ENDPOINTS.split(',');
      const raw = new Etcd3({ hosts });
      const revision = async () => BigInt((await raw.kv.range({ key: Buffer.from('probe') })).header.revision);
      const results = {};
      for (const contractResults of [false, true]) {
        const p = new EtcdLeaseProvider({ hosts, prefix: 'packed/' + process.pid + '/' + contractResults + '/', contractResults });
        const before = await revision();
        const waited = await p.waitForLease('w', 'W', 30000, { timeoutMs: 3000 }).then((r) => r.owner + ' ' + typeof r.fencingToken, (e) => e.code);
        const waitWrites = Number((await revision()) - before);
        const held = await p.hold('h', 'W', 30000, { timeoutMs: 3000 }).then(async (h) => { await h.release(); return h.owner + ' ' + typeof h.fencingToken; }, (e) => e.code);
        results[contractResults] = { waited, held, waitWrites, writes: Number((await revision()) - before) };
        await p.close();
      }
      raw.close();
      console.log(JSON.stringify(results));
    `;
    const each = { waited: 'W string', held: 'W string', waitWrites: 1, writes: 3 }; // wait: 1; hold: 1, its release: 1
    expect(await runScript(app, 'waiting.mjs', source, { ETCD_ENDPOINTS: etcd.cluster.endpoints().join(',') })).toEqual({ false: each, true: each });
  }, 30_000);
});
