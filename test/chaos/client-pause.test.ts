import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import { machineClock, Recorder } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

// A client process stalls (SIGSTOP: a GC pause, a frozen VM) for longer than its TTL. Meanwhile
// another owner takes the key. On resume the stalled client's renew must say `false`, and the
// belief windows of the two owners must not overlap (docs/design.md#belief-windows), on one machine-wide clock.
const etcd = useEtcdCluster();
const TTL_MS = 3000;

describe('a client paused past its TTL', () => {
  it('loses the key to another owner, learns it on resume, and no belief windows overlap', async () => {
    const prefix = etcd.uniquePrefix();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/chaos/fixtures/renewing-client.ts'], {
      env: { ...process.env, ENDPOINTS: etcd.cluster.endpoints().join(','), PREFIX: prefix, KEY: 'thread', OWNER: 'stalled', TTL_MS: String(TTL_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const history: RecordedOp[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => history.push(JSON.parse(line) as RecordedOp));
    try {
      await waitFor('the client to hold and renew', () => (history.some((o) => o.op === 'renew' && o.outcome === 'ok') ? true : undefined), { timeoutMs: 20_000 });
      child.kill('SIGSTOP');
      const pausedAt = machineClock();

      const other = etcd.provider({ prefix });
      const successor = new Recorder('successor', other, (op) => history.push(op));
      await waitFor(
        'the stalled client\u2019s lease to expire and the successor to win',
        async () => (await successor.acquire('thread', 'successor', TTL_MS)) === true,
        { timeoutMs: TTL_MS * 4, intervalMs: 100 },
      );

      const seen = history.length;
      child.kill('SIGCONT');
      const renewAfterResume = await waitFor('a renew after resume', () => history.slice(seen).find((o) => o.client === 'paused-client' && o.op === 'renew' && o.sentAt > pausedAt), { timeoutMs: 20_000 });
      expect(renewAfterResume.outcome).toBe('lost');
      expect(await other.getLeaseOwner('thread')).toBe('successor');
      expect(checkOverlaps(history)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
