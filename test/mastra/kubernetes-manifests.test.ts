import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { checkManifests } from '../../examples/kubernetes/check.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'kubernetes');

/**
 * A copy of the example (and of what it checks outside its folder: the app's Dockerfile, the build context's
 * .dockerignore) with one file edited, to show the check notices. `file` is relative to the example, or to the
 * repository when it starts with '/'.
 */
function withEdit(file: string, edit: (text: string) => string): string[] {
  const root = mkdtempSync(join(tmpdir(), 'k8s-example-'));
  try {
    const dir = join(root, 'examples', 'kubernetes');
    cpSync(EXAMPLE, dir, { recursive: true });
    cpSync(join(ROOT, 'examples', 'mastra-app', 'Dockerfile'), join(root, 'examples', 'mastra-app', 'Dockerfile'));
    cpSync(join(ROOT, '.dockerignore'), join(root, '.dockerignore'));
    const path = file.startsWith('/') ? join(root, file) : join(dir, file);
    writeFileSync(path, edit(readFileSync(path, 'utf8')));
    return checkManifests(dir, root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The problems `edit` brings, asserting it brings some: each line of the check can fail. */
function problemsOf(file: string, edit: (text: string) => string): string {
  const problems = withEdit(file, (text) => {
    const edited = edit(text);
    expect(edited, 'the edit changes nothing').not.toBe(text);
    return edited;
  });
  return problems.join('\n');
}

describe('examples/kubernetes', () => {
  it('parses and is consistent', () => {
    expect(checkManifests(EXAMPLE)).toEqual([]);
  });

  it('reports a YAML syntax error', () => {
    const problems = withEdit('etcd.yaml', (text) => text.replace('replicas: 3', 'replicas: [3'));
    expect(problems.join('\n')).toMatch(/etcd\.yaml/);
  });

  it('reports ETCD_ENDPOINTS that do not name every member', () => {
    const problems = withEdit('mastra-app.yaml', (text) => text.replace(',https://etcd-2.etcd.mastra.svc:2379', ''));
    expect(problems.join('\n')).toMatch(/ETCD_ENDPOINTS/);
  });

  it('reports an etcd that does not compact its history (EtcdPubSub would fill its quota)', () => {
    const problems = withEdit('etcd.yaml', (text) => text.replace(/ *- --auto-compaction-retention=\S+\n/, ''));
    expect(problems.join('\n')).toMatch(/auto-compaction-retention/);
  });

  it('reports an event prefix that overlaps the lease prefix', () => {
    const problems = withEdit('mastra-app.yaml', (text) => text.replace('ETCD_EVENT_PREFIX: mastra/events/', 'ETCD_EVENT_PREFIX: mastra/lease/events/'));
    expect(problems.join('\n')).toMatch(/ETCD_EVENT_PREFIX/);
  });

  it('reports a Secret that nothing creates', () => {
    const problems = withEdit('mastra-app.yaml', (text) => text.replace('secretName: etcd-client-tls', 'secretName: etcd-tls'));
    expect(problems.join('\n')).toMatch(/etcd-tls/);
  });

  it('reports an etcd release other than the one the tests and docker-compose.yml run', () => {
    expect(problemsOf('etcd.yaml', (text) => text.replace('etcd:v3.5.30', 'etcd:v3.5.17'))).toMatch(/etcd runs .*v3\.5\.17.*the tests and docker-compose\.yml run .*v3\.5\.30/);
  });

  it('reports missing lease checkpoint flags', () => {
    expect(problemsOf('etcd.yaml', (text) => text.replace(/ *- --experimental-enable-lease-checkpoint-persist\n/, ''))).toMatch(/lacks --experimental-enable-lease-checkpoint-persist/);
    expect(problemsOf('etcd.yaml', (text) => text.replace(/ *- --experimental-enable-lease-checkpoint\n/, ''))).toMatch(/lacks --experimental-enable-lease-checkpoint$/m);
  });

  it('reports a memory limit below the backend quota, and a volume below two copies of it', () => {
    expect(problemsOf('etcd.yaml', (text) => text.replace('limits: { memory: 3Gi }', 'limits: { memory: 1Gi }'))).toMatch(/memory limit \(1Gi\) is below its backend quota/);
    expect(problemsOf('etcd.yaml', (text) => text.replace('storage: 8Gi', 'storage: 3Gi'))).toMatch(/volume \(3Gi\) is below twice its backend quota/);
    expect(problemsOf('etcd.yaml', (text) => text.replace('--quota-backend-bytes=2147483648', '--quota-backend-bytes=4294967296'))).toMatch(/memory limit \(3Gi\) is below/);
  });

  it('reports etcd auth left off, or a role that does not grant the prefixes the app uses, or another user than its certificate', () => {
    const unlisted = problemsOf('kustomization.yaml', (text) => text.replace('  - etcd-auth.yaml\n', ''));
    expect(unlisted).toMatch(/no Job etcd-auth/);
    expect(unlisted).toMatch(/does not list etcd-auth\.yaml/);
    const noJob = withEdit('etcd-auth.yaml', (text) => text.replace('kind: Job', 'kind: CronJob').replace('name: etcd-auth\n', 'name: other\n'));
    expect(noJob.join('\n')).toMatch(/no Job etcd-auth: etcd auth stays off/);
    expect(problemsOf('etcd-auth.yaml', (text) => text.replace('"mastra/lease/ mastra/events/"', '"mastra/lease/"'))).toMatch(/grants mastra\/lease\/, not the app's prefix mastra\/events\//);
    expect(problemsOf('mastra-app.yaml', (text) => text.replace('ETCD_PREFIX: mastra/lease/', 'ETCD_PREFIX: apps/a/lease/'))).toMatch(/not the app's prefix apps\/a\/lease\//);
    expect(problemsOf('etcd-auth.yaml', (text) => text.replace('value: mastra-app }', 'value: app }'))).toMatch(/makes user app, but the app's certificate .* has CN mastra-app/);
    expect(problemsOf('make-certs.sh', (text) => text.replace('issue root root', 'issue admin root'))).toMatch(/no root certificate/);
    expect(problemsOf('etcd-auth.yaml', (text) => text.replace('secretName: etcd-root-tls', 'secretName: etcd-admin-tls'))).toMatch(/mounts Secret etcd-admin-tls/);
    expect(problemsOf('kustomization.yaml', (text) => text.replace('files: [etcd-auth.sh]', 'files: [auth.sh]'))).toMatch(/made from auth\.sh, which does not exist/);
  });

  it('reports an ETCD_* variable the package loader does not read (one set of settings)', () => {
    expect(problemsOf('mastra-app.yaml', (text) => text.replace('ETCD_PREFIX: mastra/lease/', 'ETCD_LEASE_PREFIX: mastra/lease/'))).toMatch(
      /sets ETCD_LEASE_PREFIX, which loadEtcdOptionsFromEnv does not read/,
    );
  });

  it('reports an image the README neither builds nor loads, a Dockerfile off the supported Node lines, and a build context with everything in it', () => {
    expect(problemsOf('mastra-app.yaml', (text) => text.replace('image: mastra-app:example', 'image: mastra-app:v2'))).toMatch(/does not build the image mastra-app:v2/);
    expect(problemsOf('README.md', (text) => text.replace('kind load docker-image mastra-app:example', 'kind load'))).toMatch(/does not say `kind load docker-image/);
    expect(problemsOf('/examples/mastra-app/Dockerfile', (text) => text.replace('FROM node:22-bookworm-slim', 'FROM node:20-bookworm-slim'))).toMatch(/not on node:22 or node:24/);
    expect(problemsOf('/examples/mastra-app/Dockerfile', (text) => text.replace('etcd:v3.5.30 AS etcd', 'etcd:v3.5.29 AS etcd'))).toMatch(/does not take etcdctl from/);
    expect(problemsOf('/.dockerignore', () => 'dist\n')).toMatch(/no \.dockerignore/);
  });
});
