import { createRequire } from 'node:module';
import type { ClusterDriverName } from './types.js';
import { findDockerEngine } from './docker-engine.js';
import { findExecutable, isExecutableFile } from './find-executable.js';
import { NoEtcdError, runningFrom, type RunningFrom } from './no-etcd-error.js';

/**
 * The official etcd image of the v3.5 line (what Kubernetes runs), at a pinned tag so every run without
 * an etcd binary gets the same etcd. `ETCD_IMAGE` overrides it, e.g. with an image built offline by
 * launcher/build-etcd-image.sh.
 */
export const DEFAULT_ETCD_IMAGE = 'gcr.io/etcd-development/etcd:v3.5.30';

/** How members will run: which etcd binary, or which image on which engine. */
export type EtcdLauncher =
  | { readonly driver: 'process'; readonly bin: string }
  | { readonly driver: 'container'; readonly image: string };

/**
 * The one choice the tests, the demo and the benchmark make: `ETCD_BIN` or `etcd` on PATH → processes;
 * else a Docker engine that answers → containers of `ETCD_IMAGE` (default `DEFAULT_ETCD_IMAGE`); else a
 * `NoEtcdError` naming the ways to get etcd this user has (a clone's, or the installed package's). `ETCD_DRIVER` (or `forced`) skips the choice — CI runs the
 * container driver on a machine that also has the binary — but still fails with that message when the
 * forced driver cannot run.
 */
export async function chooseLauncher(
  forced?: ClusterDriverName,
  env: NodeJS.ProcessEnv = process.env,
  from: RunningFrom = runningFrom(),
): Promise<EtcdLauncher> {
  const driver = forced ?? driverFromEnv(env);
  const tried: string[] = [];
  if (driver !== 'container') {
    const bin = etcdBinary(env);
    if (bin !== undefined) return { driver: 'process', bin };
    tried.push(env.ETCD_BIN ? `ETCD_BIN=${env.ETCD_BIN} is not an executable file` : 'no `etcd` on PATH');
  }
  // The installed package does not bring the container driver's library: unless its user added it, containers
  // are no way for them, and not worth a mention unless they asked for containers.
  const containersPossible = from === 'clone' || driver === 'container' || testcontainersInstalled();
  if (driver !== 'process' && containersPossible) {
    const engine = await findDockerEngine();
    if (engine.ok) return { driver: 'container', image: env.ETCD_IMAGE || DEFAULT_ETCD_IMAGE };
    tried.push(engine.reason);
  }
  if (driver !== undefined) tried.push(`the driver is set to '${driver}' (ETCD_DRIVER), so nothing else was tried`);
  throw new NoEtcdError(tried, from);
}

function testcontainersInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('testcontainers');
    return true;
  } catch {
    return false;
  }
}

function driverFromEnv(env: NodeJS.ProcessEnv): ClusterDriverName | undefined {
  const value = env.ETCD_DRIVER;
  if (value === undefined || value === '') return undefined;
  if (value === 'process' || value === 'container') return value;
  throw new Error(`ETCD_DRIVER must be 'process' or 'container', got '${value}'`);
}

/** ETCD_BIN when it names an executable file, else `etcd` from PATH; undefined when neither exists. */
function etcdBinary(env: NodeJS.ProcessEnv): string | undefined {
  // A set ETCD_BIN that is wrong is not silently replaced by another etcd: the caller meant that one.
  if (env.ETCD_BIN) return isExecutableFile(env.ETCD_BIN) ? env.ETCD_BIN : undefined;
  return findExecutable('etcd', env);
}
