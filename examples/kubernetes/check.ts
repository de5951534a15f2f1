/**
 * Static checks of the Kubernetes example, for CI: every YAML file parses without errors or
 * warnings, and the pieces that must agree do (etcd member names, ETCD_ENDPOINTS, Secrets,
 * Services, the event and lease prefixes, etcd compacting the history events leave behind). Run: `npx tsx examples/kubernetes/check.ts` (exit code 1 on problems); the
 * test suite runs it too (test/mastra/kubernetes-manifests.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { parseAllDocuments } from 'yaml';

type Manifest = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string }; spec?: any; data?: any };

export function loadManifests(dir: string): { file: string; manifest: Manifest }[] {
  const loaded: { file: string; manifest: Manifest }[] = [];
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const problems = [...doc.errors, ...doc.warnings];
      if (problems.length > 0) throw new Error(`${file}: ${problems.map((p) => p.message).join('; ')}`);
      const manifest = doc.toJS() as Manifest | null;
      if (manifest !== null) loaded.push({ file, manifest });
    }
  }
  return loaded;
}

/** Returns the problems found; empty when the example is consistent. */
export function checkManifests(dir: string): string[] {
  const problems: string[] = [];
  let loaded: { file: string; manifest: Manifest }[];
  try {
    loaded = loadManifests(dir);
  } catch (error) {
    return [String((error as Error).message)];
  }
  const find = (kind: string, name: string) => loaded.find(({ manifest: m }) => m.kind === kind && m.metadata?.name === name)?.manifest;

  for (const { file, manifest } of loaded) {
    // A Kustomization is read by kustomize, not the API server, and needs no name.
    const needsName = manifest.kind !== 'Kustomization';
    if (!manifest.apiVersion || !manifest.kind || (needsName && !manifest.metadata?.name)) {
      problems.push(`${file}: a document lacks apiVersion, kind or metadata.name`);
    }
  }

  const kustomization = loaded.find(({ manifest }) => manifest.kind === 'Kustomization')?.manifest as { resources?: string[] } | undefined;
  const files = new Set(loaded.map(({ file }) => file));
  for (const resource of kustomization?.resources ?? []) {
    if (!files.has(resource)) problems.push(`kustomization.yaml lists ${resource}, which does not exist`);
  }

  const etcd = find('StatefulSet', 'etcd');
  if (!etcd) return [...problems, 'no StatefulSet etcd'];
  const ns = etcd.metadata?.namespace ?? 'default';
  const members: number = etcd.spec?.replicas;
  if (members !== 3) problems.push(`StatefulSet etcd has ${members} replicas, expected 3`);
  const headless = find('Service', etcd.spec?.serviceName);
  if (headless?.spec?.clusterIP !== 'None') problems.push(`StatefulSet etcd: serviceName ${etcd.spec?.serviceName} is not a headless Service`);

  const etcdArgs: string[] = etcd.spec?.template?.spec?.containers?.[0]?.args ?? [];
  const memberHost = (i: number) => `etcd-${i}.${etcd.spec?.serviceName}.${ns}.svc`;
  const initialCluster = etcdArgs.find((a) => a.startsWith('--initial-cluster='))?.split('=').slice(1).join('=');
  const expectedCluster = Array.from({ length: members }, (_, i) => `etcd-${i}=https://${memberHost(i)}:2380`).join(',');
  if (initialCluster !== expectedCluster) problems.push(`etcd --initial-cluster is ${initialCluster}, expected ${expectedCluster}`);
  for (const flag of ['--client-cert-auth', '--peer-client-cert-auth', '--auto-compaction-mode=periodic']) {
    if (!etcdArgs.includes(flag)) problems.push(`etcd lacks ${flag}`);
  }
  // EtcdPubSub writes short-lived keys all the time: etcd must compact its history by itself (it never does by default).
  if (!etcdArgs.some((a) => /^--auto-compaction-retention=\d+[smh]?$/.test(a))) problems.push('etcd lacks --auto-compaction-retention (EtcdPubSub needs etcd to compact)');

  const app = find('Deployment', 'mastra-app');
  if (!app) return [...problems, 'no Deployment mastra-app'];
  if (!(app.spec?.replicas >= 2)) problems.push(`Deployment mastra-app has ${app.spec?.replicas} replicas: a multi-instance example needs at least 2`);
  const container = app.spec?.template?.spec?.containers?.[0];
  const env: Record<string, string> = {};
  for (const ref of container?.envFrom ?? []) Object.assign(env, find('ConfigMap', ref.configMapRef?.name)?.data ?? {});
  for (const variable of container?.env ?? []) env[variable.name] = variable.value;
  const expectedEndpoints = Array.from({ length: members }, (_, i) => `https://${memberHost(i)}:2379`).join(',');
  if (env.ETCD_ENDPOINTS !== expectedEndpoints) problems.push(`ETCD_ENDPOINTS is ${env.ETCD_ENDPOINTS}, expected ${expectedEndpoints}`);
  const ttl = Number(env.MASTRA_AGENT_THREAD_LEASE_TTL_MS);
  if (!(ttl >= 2000 && ttl % 1000 === 0)) problems.push(`MASTRA_AGENT_THREAD_LEASE_TTL_MS must be whole seconds of at least 2 s, got ${env.MASTRA_AGENT_THREAD_LEASE_TTL_MS}`);
  for (const name of ['ETCD_CA_FILE', 'ETCD_CERT_FILE', 'ETCD_KEY_FILE']) {
    if (!env[name]) problems.push(`Deployment mastra-app does not set ${name}`);
  }
  const leasePrefix = env.ETCD_PREFIX ?? 'mastra/lease/';
  const eventPrefix = env.ETCD_EVENT_PREFIX ?? 'mastra/events/';
  if (leasePrefix.startsWith(eventPrefix) || eventPrefix.startsWith(leasePrefix)) {
    problems.push(`ETCD_EVENT_PREFIX ${eventPrefix} overlaps ETCD_PREFIX ${leasePrefix}: events would be read as leases`);
  }

  // Every Secret a pod mounts is one make-certs.sh creates.
  const script = readFileSync(join(dir, 'make-certs.sh'), 'utf8');
  const scriptSecrets = new Set([...script.matchAll(/for name in ([\w ]+); do/g)].flatMap((m) => m[1]!.split(' ').map((n) => `etcd-${n}-tls`)));
  for (const workload of [etcd, app]) {
    for (const volume of workload.spec?.template?.spec?.volumes ?? []) {
      const secret = volume.secret?.secretName;
      if (secret && !scriptSecrets.has(secret)) problems.push(`${workload.metadata?.name} mounts Secret ${secret}, which make-certs.sh does not create`);
    }
  }
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  const problems = checkManifests(dir);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log('kubernetes example: ok');
}
