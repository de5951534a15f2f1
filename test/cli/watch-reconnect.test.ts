import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { CliProcess, cleanEnv } from './support/cli-process.js';

const etcd = useEtcdCluster({ size: 1 });

const notices = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('watch: '));

describe('etcd-lease watch through an outage', () => {
  it('says why it lost etcd and which endpoint failed, a few times rather than at every retry, and when it is back', async () => {
    const prefix = etcd.uniquePrefix();
    const endpoint = etcd.cluster.endpoint(0);
    const watch = new CliProcess(['watch', '--json', '--endpoints', endpoint, '--prefix', prefix, '--timeout', '2000'], cleanEnv());
    try {
      await watch.until('the watch to start', (p) => p.stderr.includes('watching'));
      await etcd.cluster.kill(0);
      await watch.until('the disconnect, with its cause', (p) => /^watch: disconnected from etcd \(.+\); reconnecting$/m.test(p.stderr));
      // The reminder after 10 s names the endpoint and what it failed with (etcd3's retries back off up to 30 s).
      await watch.until('a reminder naming the endpoint', (p) => p.stderr.includes('watch: still reconnecting after'), 60_000);
      const reminder = notices(watch.stderr).find((line) => line.startsWith('watch: still reconnecting after'))!;
      expect(reminder).toContain(endpoint.replace(/^https?:\/\//, ''));

      await etcd.cluster.restart(0);
      await watch.until('the return', (p) => p.stderr.includes('watch: reconnected after'), 60_000);
      // One line when it broke, one reminder or two, one when it came back: not one per failed try.
      expect(notices(watch.stderr).length, watch.stderr).toBeLessThanOrEqual(5);

      const provider = etcd.provider({ prefix });
      await provider.acquireLease('after-the-outage', 'A', 15_000);
      await watch.until('the event after the outage', (p) => p.stdout.includes('after-the-outage'));
    } finally {
      watch.signal('SIGKILL');
      await watch.exited;
    }
  }, 150_000);
});
