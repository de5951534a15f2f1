import { TaskCancelledError } from 'cockatiel';
import { EtcdLeaseInvalidError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import type { GroupCommitter } from '../commit/group-committer.js';
import type { TxnOutcome } from '../operations/etcd-txn.js';
import type { AttemptContext } from '../transport/call-runner.js';
import { LeasedWrites } from './leased-writes.js';

const TXN = { compare: [], success: [], failure: [] };
const OUTCOME: TxnOutcome = { succeeded: true, responses: [], revision: '7' };

/** A committer whose every submit answers `answer`, and a source that records what it was told to drop. */
function writesWith(answer: () => Promise<TxnOutcome>) {
  const sent: unknown[] = [];
  const dropped: string[] = [];
  const committer = { submit: (key: Buffer) => (sent.push(key), answer()) } as unknown as GroupCommitter;
  const writes = new LeasedWrites(committer, { invalidate: (id) => dropped.push(id) });
  return { writes, sent, dropped };
}

function attempt(): AttemptContext & { end(): void } {
  const controller = new AbortController();
  return { timeoutMs: 500, deadline: new Date(Date.now() + 500), attempt: 0, signal: controller.signal, end: () => controller.abort() };
}

describe('LeasedWrites', () => {
  it('a lease that is there is handed back as it is, without a promise', () => {
    const { writes } = writesWith(async () => OUTCOME);
    const lease = { id: '1', notBefore: 0 };
    expect(writes.granted(lease, attempt())).toBe(lease);
  });

  it('an attempt that ends while its lease is granted gets no lease and sends nothing', async () => {
    const { writes, sent } = writesWith(async () => OUTCOME);
    const ending = attempt();
    let grant!: (id: string) => void;
    const waiting = writes.granted(new Promise<string>((resolve) => (grant = resolve)), ending);
    ending.end();
    grant('1');
    await expect(waiting).rejects.toBeInstanceOf(TaskCancelledError);
    expect(sent).toEqual([]);
  });

  it('a lease etcd no longer knows is dropped from its source; other failures leave it', async () => {
    const unknown = writesWith(() => Promise.reject(new EtcdLeaseInvalidError('1')));
    await expect(unknown.writes.commit(Buffer.from('k'), TXN, attempt(), '1')).rejects.toBeInstanceOf(EtcdLeaseInvalidError);
    expect(unknown.dropped).toEqual(['1']);

    const down = writesWith(() => Promise.reject(new Error('unavailable')));
    await expect(down.writes.commit(Buffer.from('k'), TXN, attempt(), '1')).rejects.toThrow('unavailable');
    expect(down.dropped).toEqual([]);

    const none = writesWith(() => Promise.reject(new EtcdLeaseInvalidError('2')));
    await expect(none.writes.commit(Buffer.from('k'), TXN, attempt(), undefined)).rejects.toBeInstanceOf(EtcdLeaseInvalidError);
    expect(none.dropped).toEqual([]);
  });
});
