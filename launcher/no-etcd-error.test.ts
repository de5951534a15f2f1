import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NoEtcdError, noEtcdMessage, runningFrom } from './no-etcd-error.js';

const dir = mkdtempSync(join(tmpdir(), 'no-etcd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a clone has and the installed package does not: each must be named only where the user has it. */
const CLONE_ONLY = ['docker compose', 'this repository', 'launcher/build-etcd-image.sh', 'npm start', 'test suites', 'testcontainers', 'devDependency'];

describe('the no-etcd message', () => {
  it('tells a clone from the installed package by the files beside the code', () => {
    expect(runningFrom(resolve(import.meta.dirname, '..'))).toBe('clone');
    const installed = join(dir, 'node_modules', 'etcd-lease-provider');
    mkdirSync(join(installed, 'dist'), { recursive: true });
    writeFileSync(join(installed, 'package.json'), '{}');
    expect(runningFrom(installed)).toBe('package');
  });

  it('in a clone: a binary, Docker (with the image script) and the repository compose file', () => {
    const message = noEtcdMessage(['no `etcd` on PATH', 'no Docker engine answers'], 'clone');
    expect(message).toMatch(/^No etcd to start a cluster from \(no `etcd` on PATH; no Docker engine answers\)/);
    for (const way of ['apt-get install etcd-server', 'brew install etcd', 'ETCD_BIN', 'ETCD_IMAGE', 'bash launcher/build-etcd-image.sh', 'docker compose up -d']) {
      expect(message).toContain(way);
    }
  });

  it('from the installed package: a binary or a running etcd for `etcd-lease demo`, nothing the package does not ship', () => {
    const message = noEtcdMessage(['no `etcd` on PATH'], 'package');
    expect(message).toMatch(/^No etcd to start a local cluster from \(no `etcd` on PATH\)\. Either of these works:/);
    for (const way of ['apt-get install etcd-server', 'brew install etcd', 'ETCD_BIN', 'ETCD_ENDPOINTS=', 'etcd-lease demo', 'docker run']) {
      expect(message).toContain(way);
    }
    for (const absent of CLONE_ONLY) expect(message).not.toContain(absent);
  });

  it('is the error message as it is, with no class name in it', () => {
    const error = new NoEtcdError(['no `etcd` on PATH'], 'package');
    expect(error.message).toBe(noEtcdMessage(['no `etcd` on PATH'], 'package'));
    expect(error.message).not.toContain('NoEtcdError');
  });
});
