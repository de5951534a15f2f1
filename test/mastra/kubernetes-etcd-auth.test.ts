import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, delimiter, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

import { findExecutable, isExecutableFile } from '../../launcher/find-executable.js';
import { readConfig } from '../../examples/mastra-app/src/config.js';
import { createApp } from '../../examples/mastra-app/src/server.js';
import { EtcdLeaseProvider, EtcdPermissionError, loadEtcdOptionsFromEnv } from '../../src/index.js';
import type { CertFiles } from '../harness/test-pki.js';
import { useSecureCluster } from '../security/support/secure-cluster.js';
import { waitFor } from '../support/wait.js';

/**
 * The Kubernetes example's etcd-auth Job, its script run as the Job runs it (sh, etcdctl's own variables, a root
 * certificate) against a TLS cluster with --client-cert-auth: afterwards the example app, connecting with its
 * certificate (CN=mastra-app) and the ConfigMap's prefixes, works, and nothing else does.
 */
const SCRIPT = join(import.meta.dirname, '..', '..', 'examples', 'kubernetes', 'etcd-auth.sh');
const etcd = useSecureCluster({ tls: true, clientCertAuth: true });
let root: CertFiles;
let app: CertFiles;
let other: CertFiles;

beforeAll(async () => {
  root = await etcd.pki.clientCert('root');
  app = await etcd.pki.clientCert('mastra-app');
  other = await etcd.pki.clientCert('someone-else');
});

/**
 * A folder whose `etcdctl` the script finds first on PATH: the one of this run's etcd (beside ETCD_BIN), else
 * ETCDCTL_BIN or the one on PATH; with members in containers and none of those, a wrapper that runs the etcd image's
 * own etcdctl on the host network with the certificates mounted (a machine with only Docker has no etcdctl).
 */
function etcdctlDir(): string {
  const beside = process.env.ETCD_BIN ? join(dirname(process.env.ETCD_BIN), 'etcdctl') : undefined;
  const found = process.env.ETCDCTL_BIN || (beside !== undefined && isExecutableFile(beside) ? beside : findExecutable('etcdctl'));
  if (found !== undefined) return dirname(found);
  const image = process.env.ETCD_IMAGE;
  if (process.env.ETCD_DRIVER !== 'container' || !image) {
    throw new Error('etcdctl not found: install it (Debian: etcd-client; macOS: brew install etcd) or set ETCDCTL_BIN');
  }
  const dir = mkdtempSync(join(tmpdir(), 'etcdctl-in-image-'));
  const variables = ['ETCDCTL_API', 'ETCDCTL_ENDPOINTS', 'ETCDCTL_CACERT', 'ETCDCTL_CERT', 'ETCDCTL_KEY'].map((name) => `-e ${name}`).join(' ');
  writeFileSync(
    join(dir, 'etcdctl'),
    `#!/bin/sh\nexec docker run --rm --network host ${variables} -v "${etcd.pki.dir}:${etcd.pki.dir}:ro" --entrypoint /usr/local/bin/etcdctl ${image} "$@"\n`,
    { mode: 0o755 },
  );
  etcd.onClose(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function runJob(): Promise<{ stdout: string; stderr: string }> {
  const env = {
    PATH: [etcdctlDir(), process.env.PATH ?? ''].join(delimiter),
    ETCDCTL_ENDPOINTS: etcd.cluster.endpoints().join(','),
    ETCDCTL_CACERT: etcd.pki.ca.cert,
    ETCDCTL_CERT: root.cert,
    ETCDCTL_KEY: root.key,
    APP_USER: 'mastra-app',
    APP_PREFIXES: 'mastra/lease/ mastra/events/',
  };
  return promisify(execFile)('sh', [SCRIPT], { env, encoding: 'utf8', timeout: 60_000 });
}

/** The app's environment in the pod: the ConfigMap's prefixes, the mounted client certificate. */
function appEnv(cert: CertFiles): Record<string, string> {
  return {
    ETCD_ENDPOINTS: etcd.cluster.endpoints().join(','),
    ETCD_CA_FILE: etcd.pki.ca.cert,
    ETCD_CERT_FILE: cert.cert,
    ETCD_KEY_FILE: cert.key,
    ETCD_PREFIX: 'mastra/lease/',
    ETCD_EVENT_PREFIX: 'mastra/events/',
    PORT: '0',
  };
}

describe('examples/kubernetes etcd-auth Job', () => {
  it('turns auth on: the example app works with its certificate and prefixes, other prefixes and certificates get nothing', async () => {
    const { stdout } = await runJob();
    expect(stdout).toContain('etcd auth is on; mastra-app may read and write under: mastra/lease/ mastra/events/');

    const server = createApp(readConfig(appEnv(app)));
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    const observer = new EtcdLeaseProvider({ ...loadEtcdOptionsFromEnv(appEnv(app)), deadlineMs: 10_000 });
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const res = await fetch(`${base}/threads/user-1/chat-1/messages`, { method: 'POST', body: JSON.stringify({ text: 'hello' }) });
      expect(await res.json()).toMatchObject({ action: 'wake' });
      await waitFor('the run to release its lease', async () => (await observer.getLeaseOwner('user-1\u0000chat-1')) === undefined, { timeoutMs: 15_000 });
    } finally {
      await observer.close();
      await server.close();
    }

    const outside = new EtcdLeaseProvider({ ...loadEtcdOptionsFromEnv({ ...appEnv(app), ETCD_PREFIX: 'mastra/other/' }), deadlineMs: 10_000 });
    const stranger = new EtcdLeaseProvider({ ...loadEtcdOptionsFromEnv(appEnv(other)), deadlineMs: 10_000 });
    try {
      await expect(outside.acquireLease('k', 'o', 5000)).rejects.toBeInstanceOf(EtcdPermissionError);
      // Before the Job, any certificate the CA signed could write anywhere; now one whose CN is no user cannot.
      await expect(stranger.acquireLease('k', 'o', 5000)).rejects.toBeInstanceOf(EtcdPermissionError);
    } finally {
      await Promise.all([outside.close(), stranger.close()]);
    }
  }, 120_000);

  it('runs again without changing anything (a Job may be retried, or applied again)', async () => {
    const { stdout } = await runJob();
    expect(stdout).toContain('etcd auth is on');
    const provider = new EtcdLeaseProvider({ ...loadEtcdOptionsFromEnv(appEnv(app)), deadlineMs: 10_000 });
    try {
      expect(await provider.acquireLease('again', 'o', 5000)).toMatchObject({ acquired: true });
      await provider.releaseLease('again', 'o');
    } finally {
      await provider.close();
    }
  }, 120_000);
});
