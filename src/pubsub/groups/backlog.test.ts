import { CompareTarget } from 'etcd3';
import { describe, expect, it } from 'vitest';

import { encodeClaim, type ClaimValue } from './claim-txns.js';
import { finishTxn } from './backlog.js';

const claimKey = Buffer.from('x/t/a/c/g/p-1');
const eventKey = Buffer.from('x/t/a/e/p-1');
const done: ClaimValue = { m: 'me', a: 1, s: 'done', t: 5 };
const common = { claimKey, claimRevision: '20', value: done, eventKey, backlogs: Buffer.from('x/t/a/g/'), backlogCreated: '7' };

describe('finishing an event only this group waits for', () => {
  it('changes only the claim this member holds, and reads it otherwise, as a plain ack', () => {
    const txn = finishTxn({ ...common, lease: '42' });
    expect(txn.compare).toEqual([expect.objectContaining({ key: claimKey, target: CompareTarget.Mod, mod_revision: '20' })]);
    expect(txn.failure![0]!.request_range).toEqual({ key: claimKey });
  });

  it('moves event and claim to the retention lease when this group is the only one and the event is there', () => {
    const inner = finishTxn({ ...common, lease: '42' }).success![0]!.request_txn!;
    expect(inner.compare).toEqual([
      expect.objectContaining({ key: common.backlogs, range_end: Buffer.from('x/t/a/g0'), target: CompareTarget.Create, create_revision: '7' }),
      expect.objectContaining({ key: eventKey, target: CompareTarget.Create, create_revision: 0 }),
    ]);
    expect(inner.success!.map((op) => op.request_put)).toEqual([
      { key: eventKey, ignore_value: true, lease: '42' },
      { key: claimKey, value: encodeClaim(done), lease: '42' },
    ]);
    // Another group (or no event): the claim is written where it is, the event stays.
    expect(inner.failure!.map((op) => op.request_put)).toEqual([{ key: claimKey, value: encodeClaim(done), ignore_lease: true }]);
  });
});
