import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import { CliProcess, cleanEnv } from './support/cli-process.js';

/**
 * A member that hangs (SIGSTOP: its sockets stay open, nothing answers) keeps a watch stream open and silent: no
 * error, no end. `etcd-lease watch` must notice by itself — its stream is asked for progress and compared with a read
 * through the other members — and go on through another member, missing nothing. Which member carries the CLI's
 * stream is read from etcd itself: each member's count of open watch streams (`etcd_debugging_mvcc_watch_stream_total`).
 */
const etcd = useEtcdCluster();

async function watchStreams(): Promise<number[]> {
  return Promise.all(
    etcd.cluster.members().map(async (m) => {
      const page = await (await fetch(`${etcd.cluster.endpoint(m.index)}/metrics`)).text();
      const line = page.split('\n').find((l) => l.startsWith('etcd_debugging_mvcc_watch_stream_total '));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    }),
  );
}

describe('etcd-lease watch when the member it streams from hangs', () => {
  it('says so, reconnects through another member, and shows the changes made meanwhile, each once', async () => {
    const prefix = etcd.uniquePrefix();
    const before = await watchStreams();
    const watch = new CliProcess(['watch', '--json', '--endpoints', etcd.cluster.endpoints().join(','), '--prefix', prefix], cleanEnv());
    let paused: number | undefined;
    try {
      await watch.until('the watch to start', (p) => p.stderr.includes('watching'));
      const carrier = await waitFor('the member carrying the CLI’s stream', async () => {
        const now = await watchStreams();
        const i = now.findIndex((n, j) => n > before[j]!);
        return i < 0 ? undefined : i;
      }, { timeoutMs: 10_000 });
      const provider = etcd.provider({ prefix, hosts: etcd.cluster.endpoints().filter((_, i) => i !== carrier) });
      await provider.acquireLease('before', 'A', 15_000);
      await watch.until('the change before the hang', (p) => p.stdout.includes('"before"'));

      await etcd.cluster.pause(carrier);
      paused = carrier;
      await provider.acquireLease('during', 'A', 15_000);
      await provider.releaseLease('before', 'A');
      // Two progress checks 5 s apart find the stream silent; then it is replaced.
      await watch.until('the changes made while its member hung', (p) => p.stdout.includes('"during"') && p.stdout.includes('"freed"'), 40_000);
      expect(watch.stderr).toMatch(/^watch: disconnected from etcd \(its member fell silent or behind the cluster\); reconnecting$/m);

      const events = watch.stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; key: string });
      expect(events.map((e) => `${e.event} ${e.key}`)).toEqual(['acquired before', 'acquired during', 'freed before']);
    } finally {
      if (paused !== undefined) await etcd.cluster.resume(paused);
      watch.signal('SIGKILL');
      await watch.exited;
    }
  }, 90_000);
});
