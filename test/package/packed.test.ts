import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published shape: `npm pack` the package, unpack it into a throwaway app's node_modules and load
// it the way users do — `import` from an ESM app and `require` from a CommonJS one. The app lives under
// the repository so its dependencies (etcd3, cockatiel) resolve from the repository's node_modules.
const root = resolve(import.meta.dirname, '../..');
let app: string;

beforeAll(() => {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  app = mkdtempSync(join(root, '.tmp', 'packed-app-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', app], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop()!;
  const target = join(app, 'node_modules', 'etcd-lease-provider');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(app, tarball), '-C', target, '--strip-components=1']);
}, 120_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

const probe = `
  const ok = typeof EtcdLeaseProvider === 'function' && typeof isLeaseError === 'function';
  const p = new EtcdLeaseProvider({ hosts: '127.0.0.1:1' });
  const methods = ['acquireLease', 'getLeaseOwner', 'releaseLease', 'renewLease', 'transferLease'].every((m) => typeof p[m] === 'function');
  p.close().then(() => console.log(JSON.stringify({ ok, methods })));
`;

describe('the packed package', () => {
  it('loads with import from an ESM app', () => {
    writeFileSync(join(app, 'esm.mjs'), `import { EtcdLeaseProvider, isLeaseError } from 'etcd-lease-provider';\n${probe}`);
    expect(JSON.parse(execFileSync(process.execPath, ['esm.mjs'], { cwd: app, encoding: 'utf8' }))).toEqual({ ok: true, methods: true });
  });

  it('loads with require from a CommonJS app', () => {
    writeFileSync(join(app, 'cjs.cjs'), `const { EtcdLeaseProvider, isLeaseError } = require('etcd-lease-provider');\n${probe}`);
    expect(JSON.parse(execFileSync(process.execPath, ['cjs.cjs'], { cwd: app, encoding: 'utf8' }))).toEqual({ ok: true, methods: true });
  });

  it("exposes EtcdPubSub at 'etcd-lease-provider/mastra' to import and require: a Mastra PubSub and a lease provider", () => {
    const probePubSub = `
      const { PubSub, isLeaseProvider } = M;
      const pubsub = new EtcdPubSub({ hosts: '127.0.0.1:1' });
      const ok = pubsub instanceof PubSub && isLeaseProvider(pubsub) && isLeaseProvider(pubsub.getLeaseProvider())
        && typeof streamPartsWriteBehind === 'function' && pubsub.supportedModes.includes('pull');
      pubsub.close().then(() => console.log(JSON.stringify({ ok })));
    `;
    writeFileSync(join(app, 'pubsub.mjs'), `import { EtcdPubSub, streamPartsWriteBehind } from 'etcd-lease-provider/mastra';\nimport * as M from '@mastra/core/events';\n${probePubSub}`);
    writeFileSync(join(app, 'pubsub.cjs'), `const { EtcdPubSub, streamPartsWriteBehind } = require('etcd-lease-provider/mastra');\nconst M = require('@mastra/core/events');\n${probePubSub}`);
    for (const file of ['pubsub.mjs', 'pubsub.cjs']) {
      expect(JSON.parse(execFileSync(process.execPath, [file], { cwd: app, encoding: 'utf8' }))).toEqual({ ok: true });
    }
  });

  it("exposes withEtcdLeases at 'etcd-lease-provider/mastra' to import and require", () => {
    const probeMastra = `
      const { EventEmitterPubSub, isLeaseProvider } = M;
      const wrapped = withEtcdLeases(new EventEmitterPubSub(), { hosts: '127.0.0.1:1' });
      const ok = isLeaseProvider(wrapped) && typeof wrapped.getLeaseProvider === 'function';
      wrapped.close().then(() => console.log(JSON.stringify({ ok })));
    `;
    writeFileSync(join(app, 'mastra.mjs'), `import { withEtcdLeases } from 'etcd-lease-provider/mastra';\nimport * as M from '@mastra/core/events';\n${probeMastra}`);
    writeFileSync(join(app, 'mastra.cjs'), `const { withEtcdLeases } = require('etcd-lease-provider/mastra');\nconst M = require('@mastra/core/events');\n${probeMastra}`);
    for (const file of ['mastra.mjs', 'mastra.cjs']) {
      expect(JSON.parse(execFileSync(process.execPath, [file], { cwd: app, encoding: 'utf8' }))).toEqual({ ok: true });
    }
  });

  it('ships the etcd-lease CLI as an executable bin', () => {
    const bin = join(app, 'node_modules', 'etcd-lease-provider', 'dist', 'cli.js');
    expect(execFileSync(bin, ['--help'], { encoding: 'utf8' })).toContain('Usage: etcd-lease');
  });

  it('ships declarations for both module systems and the design document the README links, no sources or tools', () => {
    const files = execFileSync('find', ['.', '-type', 'f'], { cwd: join(app, 'node_modules', 'etcd-lease-provider'), encoding: 'utf8' });
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/index.d.cts');
    expect(files).toContain('./docs/design.md');
    for (const tree of ['test/', './src/', './cli/', './cluster/', './history/', './bench/']) expect(files).not.toContain(tree);
  });
});
