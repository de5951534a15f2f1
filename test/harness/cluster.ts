import {
  startCluster as startEtcdCluster,
  type ClusterDriverName,
  type ClusterOptions as EtcdClusterOptions,
  type FaultableCluster,
} from '../../cluster/cluster.js';

/**
 * The test cluster: the shared launcher (`cluster/`) with a fault proxy in front of every member, so
 * tests can kill, pause and partition members, and with SIGINT/SIGTERM cleaning up after an
 * interrupted run.
 *
 * Environment:
 *   ETCD_TEST_DRIVER  'process' (default) or 'container'
 *   ETCD_BIN          etcd binary for the process driver (default: etcd from PATH)
 *   ETCD_TEST_IMAGE   image for the container driver (default etcd-lease-provider/etcd:local);
 *                     prepare with cluster/ensure-docker.sh and cluster/build-etcd-image.sh
 */

export type { ClusterDriverName, ClusterTls } from '../../cluster/cluster.js';

export type TestCluster = FaultableCluster;

/** What a test chooses; the fault proxies, signal handling and temp-dir label are the harness's. */
export type ClusterOptions = Omit<EtcdClusterOptions, 'faultProxies' | 'signals' | 'label'>;

/** Starts a cluster with the driver from options, else ETCD_TEST_DRIVER, else 'process'. */
export function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  return startEtcdCluster({
    ...options,
    driver: options.driver ?? driverFromEnvironment(),
    faultProxies: true,
    signals: 'cluster',
    label: 'etcd-harness',
  });
}

function driverFromEnvironment(): ClusterDriverName {
  const value = process.env.ETCD_TEST_DRIVER;
  if (value === undefined || value === '') return 'process';
  if (value === 'process' || value === 'container') return value;
  throw new Error(`ETCD_TEST_DRIVER must be 'process' or 'container', got '${value}'`);
}
