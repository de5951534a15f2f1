import type { TestCluster } from '../../harness/cluster.js';

/**
 * A counter or gauge of etcd's own (Prometheus text on each member's /metrics), per member: what etcd itself says it
 * did — watch streams and watchers open, bytes it sent its clients — whatever the client believes.
 */
export async function memberMetric(cluster: TestCluster, name: string): Promise<number[]> {
  return Promise.all(
    cluster.members().map(async (m) => {
      const page = await (await fetch(`${cluster.endpoint(m.index)}/metrics`)).text();
      const line = page.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    }),
  );
}

/** The metric summed over the members. */
export async function clusterMetric(cluster: TestCluster, name: string): Promise<number> {
  return (await memberMetric(cluster, name)).reduce((a, b) => a + b, 0);
}
