import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { checkManifests } from '../../examples/kubernetes/check.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/kubernetes/', import.meta.url));

/** A copy of the example with one file edited, to show the check notices. */
function withEdit(file: string, edit: (text: string) => string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-example-'));
  try {
    cpSync(EXAMPLE, dir, { recursive: true });
    writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
    return checkManifests(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
});
