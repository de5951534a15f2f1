import { startCluster as startEtcdCluster } from '../../launcher/cluster.js';
import type { ClusterOptions as EtcdClusterOptions, FaultableCluster } from '../../launcher/types.js';

/**
 * The test cluster: the shared launcher (`launcher/`) with a fault proxy in front of every member, so
 * tests can kill, pause and partition members, and with SIGINT/SIGTERM cleaning up after an
 * interrupted run. Members run the way the launcher chooses (see launcher/launcher-choice.ts); the
 * vitest global setup (global-setup.ts) makes that choice once per run and passes it on.
 *
 * Environment:
 *   ETCD_BIN     etcd binary for processes (default: etcd from PATH)
 *   ETCD_IMAGE   image for containers (default: the official etcd image, v3.5)
 *   ETCD_DRIVER  'process' or 'container' to skip the choice
 */

export type TestCluster = FaultableCluster;

/** What a test chooses; the fault proxies, signal handling and temp-dir label are the harness's. */
export type ClusterOptions = Omit<EtcdClusterOptions, 'faultProxies' | 'signals' | 'label'>;

export function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  return startEtcdCluster({
    ...options,
    faultProxies: true,
    signals: 'cluster',
    label: 'etcd-harness',
  });
}
