/**
 * A throwaway etcd cluster on 127.0.0.1, the one launcher behind the test suites, the `npm start` demo and
 * the benchmark: free ports chosen at run time, data in one temp dir, everything removed by `stop()` — or by
 * an exit hook when the process ends first. Two drivers run the members (child processes or containers); a
 * fault network, when asked for, puts a TCP proxy in front of every member's client and peer ports so members
 * can be cut off, slowed down or made to lose replies.
 */

import { chooseLauncher } from './launcher-choice.js';
import type { ClusterOptions, EtcdCluster, FaultableCluster } from './types.js';

/**
 * Starts a cluster; resolves once every member serves linearizable reads. Rejects with `NoEtcdError`
 * when there is neither an etcd binary nor a Docker engine.
 */
export function startCluster(options: ClusterOptions & { faultProxies: true }): Promise<FaultableCluster>;
export function startCluster(options?: ClusterOptions): Promise<EtcdCluster>;
export async function startCluster(options: ClusterOptions = {}): Promise<EtcdCluster> {
  const driver = options.driver;
  if (driver !== undefined && driver !== 'process' && driver !== 'container') {
    throw new Error(`options.driver must be 'process' or 'container', got '${String(driver)}'`);
  }
  const launcher = await chooseLauncher(driver);
  // Imported lazily: a process-driver run (the shipped demo among them) never loads testcontainers.
  if (launcher.driver === 'process') {
    const { startProcessCluster } = await import('./process-driver.js');
    return startProcessCluster(options, launcher.bin);
  }
  const { startContainerCluster } = await import('./container-driver.js');
  return startContainerCluster(options, launcher.image);
}
