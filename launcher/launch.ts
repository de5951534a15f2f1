import type { ClusterOptions } from './types.js';
import { etcdArgs } from './etcd-args.js';
import { cleanUpOnSignals, onProcessExit } from './exit-cleanup.js';
import { createClusterLayout, directAddresses, removeClusterLayout, removeClusterLayoutSync } from './layout.js';
import { logTail } from './log-tail.js';
import { ManagedCluster } from './managed-cluster.js';
import type { MemberDriver } from './member-driver.js';
import { probeTls } from './member-probe.js';
import { FaultNetwork } from './network/fault-network.js';

const START_TIMEOUT_MS = 30_000;

/**
 * Lays out, wires and starts a cluster on the given driver; on any failure everything
 * started so far is torn down and the error carries the members' log tails.
 */
export async function launchCluster(driver: MemberDriver, options: ClusterOptions): Promise<ManagedCluster> {
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be a positive integer, got ${size}`);
  if (options.signals === 'cluster') cleanUpOnSignals();

  const withProxies = options.faultProxies === true;
  const layout = await createClusterLayout(size, options.label ?? 'etcd-cluster', withProxies);
  const forgetLayout = onProcessExit(() => removeClusterLayoutSync(layout));
  let network: FaultNetwork | undefined;
  let cluster: ManagedCluster | undefined;
  try {
    const tls = options.tls;
    const clientScheme = tls === undefined ? 'http' : 'https';
    network = withProxies ? await FaultNetwork.create(layout.members, clientScheme) : undefined;
    const addresses = network ?? directAddresses(layout, clientScheme);
    const launches = layout.members.map((member) => ({
      ...member,
      args: etcdArgs(layout, member, addresses, options),
      readOnlyFiles: tls === undefined ? [] : [tls.ca, tls.cert, tls.key],
    }));
    cluster = new ManagedCluster(layout, addresses, network, driver, launches, forgetLayout, probeTls(tls));
    // All at once: a member of a new cluster only serves once a quorum has started.
    await Promise.all(launches.map((launch) => driver.start(launch)));
    await cluster.waitHealthy(START_TIMEOUT_MS);
    return cluster;
  } catch (error) {
    const logs = await Promise.all(
      layout.members.map(async (m) => `--- ${m.name} (${m.logFile}) ---\n${await logTail(m.logFile)}`),
    );
    if (cluster !== undefined) await cluster.stop();
    else {
      await driver.stopAll();
      await network?.close();
      await removeClusterLayout(layout);
      forgetLayout();
    }
    throw new Error(`etcd cluster failed to start: ${(error as Error).message}\n${logs.join('\n')}`, {
      cause: error,
    });
  }
}
