import { CompareTarget } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { clearTopicTxn, decodePublishBatch, publishBatchTxn } from './batch-txn.js';

describe('publish batch transaction', () => {
  const events = [
    { key: Buffer.from('e/t/p-1'), value: Buffer.from('1') },
    { key: Buffer.from('e/t/p-2'), value: Buffer.from('2') },
  ];

  it('writes every event of the batch only if none exists, all on the retention lease', () => {
    const txn = publishBatchTxn(events, '42');
    expect(txn.compare).toHaveLength(2);
    expect(txn.compare!.every((c) => c.target === CompareTarget.Create && c.create_revision === 0)).toBe(true);
    expect(txn.success!.map((op) => op.request_put)).toEqual([
      { key: events[0]!.key, value: events[0]!.value, lease: '42' },
      { key: events[1]!.key, value: events[1]!.value, lease: '42' },
    ]);
    expect(txn.failure).toEqual([]);
  });

  it('with a backlog choice, etcd puts the batch on the backlog lease while any group key exists under the prefix', () => {
    const txn = publishBatchTxn(events, '42', { prefix: Buffer.from('x/t/a/g/'), lease: '77' });
    const choice = txn.success![0]!.request_txn!;
    expect(choice.compare).toEqual([
      expect.objectContaining({ key: Buffer.from('x/t/a/g/'), range_end: Buffer.from('x/t/a/g0'), target: CompareTarget.Version, version: 0 }),
    ]);
    expect(choice.success!.map((op) => op.request_put?.lease)).toEqual(['77', '77']);
    expect(choice.failure!.map((op) => op.request_put?.lease)).toEqual(['42', '42']);
  });

  it('counts the else branch of a resend as stored by the earlier attempt, not as a failure', () => {
    expect(decodePublishBatch({ succeeded: true, responses: [], revision: '9' })).toEqual({ written: 'now', revision: '9' });
    expect(decodePublishBatch({ succeeded: false, responses: [], revision: '9' })).toEqual({ written: 'earlier', revision: '9' });
  });

  it('clears the events and every group claim of the topic, and nothing else', () => {
    const txn = clearTopicTxn(Buffer.from('x/t/a/e/'), Buffer.from('x/t/a/c/'));
    expect(txn.success!.map((op) => op.request_delete_range)).toEqual([
      { key: Buffer.from('x/t/a/e/'), range_end: Buffer.from('x/t/a/e0') },
      { key: Buffer.from('x/t/a/c/'), range_end: Buffer.from('x/t/a/c0') },
    ]);
  });
});
