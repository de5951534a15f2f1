/**
 * Static checks of the Kubernetes example, for CI: every YAML file parses without errors or warnings, and the
 * pieces that must agree do — etcd member names, ETCD_ENDPOINTS, Secrets, Services, the event and lease prefixes
 * and the etcd role that grants them, the app's etcd user and its certificate, the etcd release the tests run,
 * lease checkpoints, compaction, memory and disk against the backend quota, the image build and load steps, and
 * the build context. Run: `npm run check:k8s` (exit code 1 on problems); the test suite runs it too
 * (test/mastra/kubernetes-manifests.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { parseAllDocuments } from 'yaml';

import { DEFAULT_ETCD_IMAGE } from '../../launcher/launcher-choice.js';
import { ETCD_ENV_VARIABLES } from '../../src/config/load-env.js';

type Manifest = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string }; spec?: any; data?: any };
type Container = { image?: string; command?: string[]; args?: string[]; env?: { name: string; value?: string }[]; envFrom?: any[]; resources?: any };

function loadManifests(dir: string): { file: string; manifest: Manifest }[] {
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

/** Kubernetes quantities in bytes (`3Gi`, `512Mi`, `2147483648`); NaN when unreadable. */
export function bytes(quantity: unknown): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(String(quantity));
  if (!match) return Number.NaN;
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * unit;
}

/** Returns the problems found; empty when the example is consistent. `root` is the repository (the image's build context). */
export function checkManifests(dir: string, root: string = join(dir, '..', '..')): string[] {
  const problems: string[] = [];
  let loaded: { file: string; manifest: Manifest }[];
  try {
    loaded = loadManifests(dir);
  } catch (error) {
    return [String((error as Error).message)];
  }
  const kustomization = loaded.find(({ manifest }) => manifest.kind === 'Kustomization')?.manifest as
    | { resources?: string[]; configMapGenerator?: { name: string; files?: string[] }[] }
    | undefined;
  // What `kubectl apply -k` applies: the files the Kustomization lists.
  const applied = () => loaded.filter(({ file }) => kustomization === undefined || (kustomization.resources ?? []).includes(file));
  const find = (kind: string, name: string) => applied().find(({ manifest: m }) => m.kind === kind && m.metadata?.name === name)?.manifest;

  for (const { file, manifest } of loaded) {
    // A Kustomization is read by kustomize, not the API server, and needs no name.
    const needsName = manifest.kind !== 'Kustomization';
    if (!manifest.apiVersion || !manifest.kind || (needsName && !manifest.metadata?.name)) {
      problems.push(`${file}: a document lacks apiVersion, kind or metadata.name`);
    }
  }

  const files = new Set(loaded.map(({ file }) => file));
  for (const resource of kustomization?.resources ?? []) {
    if (!files.has(resource)) problems.push(`kustomization.yaml lists ${resource}, which does not exist`);
  }
  for (const file of files) {
    if (kustomization !== undefined && file !== 'kustomization.yaml' && !(kustomization.resources ?? []).includes(file)) {
      problems.push(`kustomization.yaml does not list ${file}: \`kubectl apply -k\` leaves it out`);
    }
  }
  const generated = new Map((kustomization?.configMapGenerator ?? []).map((g) => [g.name, g.files ?? []]));
  for (const [name, sources] of generated) {
    for (const source of sources) if (!existsSync(join(dir, source))) problems.push(`ConfigMap ${name} is made from ${source}, which does not exist`);
  }

  const etcd = find('StatefulSet', 'etcd');
  if (!etcd) return [...problems, 'no StatefulSet etcd'];
  const ns = etcd.metadata?.namespace ?? 'default';
  const members: number = etcd.spec?.replicas;
  if (members !== 3) problems.push(`StatefulSet etcd has ${members} replicas, expected 3`);
  const headless = find('Service', etcd.spec?.serviceName);
  if (headless?.spec?.clusterIP !== 'None') problems.push(`StatefulSet etcd: serviceName ${etcd.spec?.serviceName} is not a headless Service`);

  const etcdContainer: Container = etcd.spec?.template?.spec?.containers?.[0] ?? {};
  // The release the test suites and docker-compose.yml run: the behaviour the README describes is that one's.
  if (etcdContainer.image !== DEFAULT_ETCD_IMAGE) problems.push(`etcd runs ${etcdContainer.image}, but the tests and docker-compose.yml run ${DEFAULT_ETCD_IMAGE}`);
  const etcdArgs: string[] = etcdContainer.args ?? [];
  const memberHost = (i: number) => `etcd-${i}.${etcd.spec?.serviceName}.${ns}.svc`;
  const initialCluster = etcdArgs.find((a) => a.startsWith('--initial-cluster='))?.split('=').slice(1).join('=');
  const expectedCluster = Array.from({ length: members }, (_, i) => `etcd-${i}=https://${memberHost(i)}:2380`).join(',');
  if (initialCluster !== expectedCluster) problems.push(`etcd --initial-cluster is ${initialCluster}, expected ${expectedCluster}`);
  const required = ['--client-cert-auth', '--peer-client-cert-auth', '--auto-compaction-mode=periodic'];
  // Lease checkpoints: long leases keep their remaining TTL across leader changes (and, with -persist, restarts).
  required.push('--experimental-enable-lease-checkpoint', '--experimental-enable-lease-checkpoint-persist');
  for (const flag of required) {
    if (!etcdArgs.includes(flag)) problems.push(`etcd lacks ${flag}`);
  }
  // EtcdPubSub writes short-lived keys all the time: etcd must compact its history by itself (it never does by default).
  if (!etcdArgs.some((a) => /^--auto-compaction-retention=\d+[smh]?$/.test(a))) problems.push('etcd lacks --auto-compaction-retention (EtcdPubSub needs etcd to compact)');

  // The db file is memory-mapped: at its quota it is all resident, so a smaller limit gets the member OOM-killed just
  // when the db is fullest. Defragmentation and snapshot transfers write a second copy of it to the volume.
  const quota = Number(etcdArgs.find((a) => a.startsWith('--quota-backend-bytes='))?.split('=')[1] ?? 2 * 2 ** 30);
  const memoryLimit = bytes(etcdContainer.resources?.limits?.memory);
  if (!(memoryLimit >= quota)) problems.push(`etcd's memory limit (${etcdContainer.resources?.limits?.memory}) is below its backend quota (${quota} bytes)`);
  const storage = bytes(etcd.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage);
  if (!(storage >= 2 * quota)) problems.push(`etcd's volume (${etcd.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage}) is below twice its backend quota`);

  const app = find('Deployment', 'mastra-app');
  if (!app) return [...problems, 'no Deployment mastra-app'];
  if (!(app.spec?.replicas >= 2)) problems.push(`Deployment mastra-app has ${app.spec?.replicas} replicas: a multi-instance example needs at least 2`);
  const container: Container = app.spec?.template?.spec?.containers?.[0] ?? {};
  const env = environment(container, (name) => find('ConfigMap', name));
  const expectedEndpoints = Array.from({ length: members }, (_, i) => `https://${memberHost(i)}:2379`).join(',');
  if (env.ETCD_ENDPOINTS !== expectedEndpoints) problems.push(`ETCD_ENDPOINTS is ${env.ETCD_ENDPOINTS}, expected ${expectedEndpoints}`);
  const ttl = Number(env.MASTRA_AGENT_THREAD_LEASE_TTL_MS);
  if (!(ttl >= 2000 && ttl % 1000 === 0)) problems.push(`MASTRA_AGENT_THREAD_LEASE_TTL_MS must be whole seconds of at least 2 s, got ${env.MASTRA_AGENT_THREAD_LEASE_TTL_MS}`);
  for (const name of ['ETCD_CA_FILE', 'ETCD_CERT_FILE', 'ETCD_KEY_FILE']) {
    if (!env[name]) problems.push(`Deployment mastra-app does not set ${name}`);
  }
  // One set of settings: the app reads the package's loader, which ignores any other ETCD_* name.
  const known = new Set<string>(Object.values(ETCD_ENV_VARIABLES));
  for (const name of Object.keys(env)) {
    if (name.startsWith('ETCD_') && !known.has(name)) problems.push(`Deployment mastra-app sets ${name}, which loadEtcdOptionsFromEnv does not read`);
  }
  const leasePrefix = env.ETCD_PREFIX ?? 'mastra/lease/';
  const eventPrefix = env.ETCD_EVENT_PREFIX ?? 'mastra/events/';
  if (leasePrefix.startsWith(eventPrefix) || eventPrefix.startsWith(leasePrefix)) {
    problems.push(`ETCD_EVENT_PREFIX ${eventPrefix} overlaps ETCD_PREFIX ${leasePrefix}: events would be read as leases`);
  }

  // Every Secret a pod mounts is one make-certs.sh creates.
  const script = readFileSync(join(dir, 'make-certs.sh'), 'utf8');
  const scriptSecrets = new Set([...script.matchAll(/for name in ([\w ]+); do/g)].flatMap((m) => m[1]!.split(' ').map((n) => `etcd-${n}-tls`)));
  const job = find('Job', 'etcd-auth');
  for (const workload of [etcd, app, ...(job ? [job] : [])]) {
    for (const volume of workload.spec?.template?.spec?.volumes ?? []) {
      const secret = volume.secret?.secretName;
      if (secret && !scriptSecrets.has(secret)) problems.push(`${workload.metadata?.name} mounts Secret ${secret}, which make-certs.sh does not create`);
      const configMap = volume.configMap?.name;
      if (configMap && !generated.has(configMap) && !find('ConfigMap', configMap)) problems.push(`${workload.metadata?.name} mounts ConfigMap ${configMap}, which nothing makes`);
    }
  }

  // etcd auth: without it any certificate the CA signed is root. The Job gives the app's certificate CN a role with
  // readwrite on exactly the app's two prefixes.
  if (!job) {
    problems.push('no Job etcd-auth: etcd auth stays off, and every certificate the CA signs is root');
  } else {
    const jobEnv = environment(job.spec?.template?.spec?.containers?.[0] ?? {}, (name) => find('ConfigMap', name));
    if (jobEnv.ETCDCTL_ENDPOINTS !== expectedEndpoints) problems.push(`the etcd-auth Job's ETCDCTL_ENDPOINTS is ${jobEnv.ETCDCTL_ENDPOINTS}, expected ${expectedEndpoints}`);
    const granted = (jobEnv.APP_PREFIXES ?? 'mastra/lease/ mastra/events/').split(/\s+/).filter(Boolean);
    for (const prefix of [leasePrefix, eventPrefix]) {
      if (!granted.some((g) => prefix.startsWith(g))) problems.push(`the etcd-auth Job grants ${granted.join(' ')}, not the app's prefix ${prefix}`);
    }
    const clientCn = /^issue client (\S+) /m.exec(script)?.[1];
    const appUser = jobEnv.APP_USER ?? 'mastra-app';
    if (appUser !== clientCn) problems.push(`the etcd-auth Job makes user ${appUser}, but the app's certificate (make-certs.sh) has CN ${clientCn}`);
    if (!/^issue root root /m.test(script)) problems.push('make-certs.sh issues no root certificate (CN=root) for the etcd-auth Job');
    if (job.spec?.template?.spec?.containers?.[0]?.image !== container.image) problems.push("the etcd-auth Job does not run the app's image (which carries etcdctl)");
  }

  problems.push(...checkImage(dir, root, container.image, etcdContainer.image));
  return problems;
}

/** A container's environment: its ConfigMaps' data, then its own `env` values over them. */
function environment(container: Container, configMap: (name: string) => Manifest | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ref of container.envFrom ?? []) Object.assign(env, configMap(ref.configMapRef?.name)?.data ?? {});
  for (const variable of container.env ?? []) if (variable.value !== undefined) env[variable.name] = variable.value;
  return env;
}

/**
 * The app's image: the README builds it under the name the manifests run and loads it into the cluster (no registry
 * has it); the Dockerfile is on a Node line the package supports and brings etcdctl of the cluster's release; the
 * build context leaves out what the image never copies.
 */
function checkImage(dir: string, root: string, image: string | undefined, etcdImage: string | undefined): string[] {
  const problems: string[] = [];
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  if (image === undefined || !readme.includes(`-t ${image} `)) problems.push(`README.md does not build the image ${image} the manifests run`);
  for (const step of [`kind load docker-image ${image}`, `minikube image load ${image}`]) {
    if (!readme.includes(step)) problems.push(`README.md does not say \`${step}\` (the image is in no registry)`);
  }
  const dockerfile = readFileSync(join(root, 'examples', 'mastra-app', 'Dockerfile'), 'utf8');
  if (!/^FROM node:(22|24)[-.\w]*\s*$/m.test(dockerfile)) problems.push('examples/mastra-app/Dockerfile is not on node:22 or node:24 (the package needs Node >= 22.13)');
  if (etcdImage === undefined || !new RegExp(`^FROM ${etcdImage.replace(/[.]/g, '\\.')} AS `, 'm').test(dockerfile)) {
    problems.push(`examples/mastra-app/Dockerfile does not take etcdctl from ${etcdImage} (the etcd-auth Job runs it)`);
  }
  const ignorePath = join(root, '.dockerignore');
  const ignored = existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8').split('\n').map((l) => l.trim()) : [];
  if (!ignored.includes('*') && !['node_modules', '.git'].every((entry) => ignored.includes(entry))) {
    problems.push('no .dockerignore at the repository root keeps node_modules and .git out of the build context');
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
