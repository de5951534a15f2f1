import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ETCD_IMAGE, chooseLauncher } from './launcher-choice.js';
import { NoEtcdError } from './no-etcd-error.js';

// Only the answers that do not depend on this machine's Docker engine (forced to processes, or a binary
// found first); the container answer is what the container-driver CI phase runs on.
const dir = mkdtempSync(join(tmpdir(), 'launcher-choice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('chooseLauncher', () => {
  it('takes ETCD_BIN before etcd on PATH', async () => {
    const onPath = executable(join(dir, 'path-a', 'etcd'));
    const own = executable(join(dir, 'own', 'etcd-3.5'));
    expect(await chooseLauncher(undefined, { PATH: join(onPath, '..'), ETCD_BIN: own })).toEqual({ driver: 'process', bin: own });
  });

  it('takes the first etcd on PATH, skipping entries without one', async () => {
    const found = executable(join(dir, 'path-b', 'etcd'));
    const env = { PATH: [join(dir, 'nothing-here'), join(found, '..')].join(':') };
    expect(await chooseLauncher(undefined, env)).toEqual({ driver: 'process', bin: found });
  });

  it('does not replace a wrong ETCD_BIN with another etcd, and names it', async () => {
    const onPath = executable(join(dir, 'path-c', 'etcd'));
    const error = await chooseLauncher('process', { PATH: join(onPath, '..'), ETCD_BIN: join(dir, 'missing') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoEtcdError);
    expect((error as NoEtcdError).tried[0]).toBe(`ETCD_BIN=${join(dir, 'missing')} is not an executable file`);
  });

  it('without a binary, under a forced process driver, names every way to get etcd', async () => {
    const error = await chooseLauncher(undefined, { PATH: join(dir, 'nothing-here'), ETCD_DRIVER: 'process' }, 'clone').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoEtcdError);
    expect((error as Error).message).toMatch(/no `etcd` on PATH.*ETCD_DRIVER/);
    for (const way of ['apt-get install etcd-server', 'brew install etcd', 'Docker', 'docker compose up']) {
      expect((error as Error).message).toContain(way);
    }
  });

  it('from the installed package, names its own ways: a binary or a running etcd', async () => {
    const error = await chooseLauncher(undefined, { PATH: join(dir, 'nothing-here'), ETCD_DRIVER: 'process' }, 'package').catch((e: unknown) => e);
    expect((error as NoEtcdError).from).toBe('package');
    expect((error as Error).message).toContain('ETCD_ENDPOINTS=');
    expect((error as Error).message).not.toContain('docker compose');
  });

  it('refuses an unknown ETCD_DRIVER', async () => {
    await expect(chooseLauncher(undefined, { ETCD_DRIVER: 'vm' })).rejects.toThrow(/ETCD_DRIVER must be 'process' or 'container', got 'vm'/);
  });

  it('defaults to the image docker-compose.yml pins, so the tests and the development cluster run one etcd', () => {
    const compose = readFileSync(join(import.meta.dirname, '..', 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`image: \${ETCD_IMAGE:-${DEFAULT_ETCD_IMAGE}}`);
  });
});
