import { CompareTarget } from 'etcd3';
import { describe, expect, it } from 'vitest';
import type { TxnOutcome } from '../../operations/etcd-txn.js';
import { claimTxn, decodeClaim, decodeClaimOutcome, decodeSettle, encodeClaim, settleTxn, type ClaimValue } from './claim-txns.js';

const claimKey = Buffer.from('x/t/a/c/g/p-1');
const eventKey = Buffer.from('x/t/a/e/p-1');
const mine: ClaimValue = { m: 'me', a: 1, s: 'held', t: 5 };
const holder = (value: ClaimValue, mod = '20'): TxnOutcome => ({
  succeeded: false,
  responses: [{ response_range: { kvs: [{ key: claimKey, value: encodeClaim(value), mod_revision: mod, create_revision: '10', lease: '7' }] } }],
  revision: '21',
});

describe('claim transactions', () => {
  it('a first claim requires no claim yet and the event as seen, and puts the claim on the event’s lease', () => {
    const txn = claimTxn({ claimKey, eventKey, eventRevision: '12', value: mine, lease: '99' });
    expect(txn.compare).toEqual([
      expect.objectContaining({ key: claimKey, target: CompareTarget.Create, create_revision: 0 }),
      expect.objectContaining({ key: eventKey, target: CompareTarget.Mod, mod_revision: '12' }),
    ]);
    expect(txn.success![0]!.request_put).toEqual({ key: claimKey, value: encodeClaim(mine), lease: '99' });
    expect(txn.failure![0]!.request_range).toEqual({ key: claimKey });
  });

  it('a takeover requires the claim exactly as seen', () => {
    const txn = claimTxn({ claimKey, eventKey, eventRevision: '12', claimRevision: '15', value: { ...mine, a: 2 }, lease: '99' });
    expect(txn.compare![0]).toEqual(expect.objectContaining({ key: claimKey, target: CompareTarget.Mod, mod_revision: '15' }));
  });

  it('a loser learns the holder; a resend that finds its own committed claim has won', () => {
    expect(decodeClaimOutcome({ succeeded: true, responses: [], revision: '30' }, mine)).toEqual({ won: true, revision: '30' });
    const other = { m: 'other', a: 1, s: 'held' as const, t: 5 };
    expect(decodeClaimOutcome(holder(other), mine)).toEqual({ won: false, holder: { value: other, revision: '20' } });
    expect(decodeClaimOutcome(holder(mine, '25'), mine)).toEqual({ won: true, revision: '25' });
    expect(decodeClaimOutcome({ succeeded: false, responses: [{ response_range: { kvs: [] } }], revision: '3' }, mine)).toEqual({ won: false });
  });

  it('ack and nack only change the claim this member holds, keeping its lease', () => {
    const done = { ...mine, s: 'done' as const };
    const txn = settleTxn(claimKey, '20', done);
    expect(txn.compare).toEqual([expect.objectContaining({ key: claimKey, target: CompareTarget.Mod, mod_revision: '20' })]);
    expect(txn.success![0]!.request_put).toEqual({ key: claimKey, value: encodeClaim(done), ignore_lease: true });
    expect(decodeSettle({ succeeded: true, responses: [], revision: '21' }, done)).toEqual({ settled: true, revision: '21' });
    expect(decodeSettle(holder(done, '22'), done)).toEqual({ settled: true, revision: '22' });
    const other = { m: 'other', a: 2, s: 'held' as const, t: 9 };
    expect(decodeSettle(holder(other), done)).toEqual({ settled: false, holder: { value: other, revision: '20' } });
  });

  it('decodes only claims it wrote', () => {
    expect(decodeClaim(encodeClaim({ ...mine, s: 'done', dropped: true }))).toEqual({ ...mine, s: 'done', dropped: true });
    expect(decodeClaim(encodeClaim({ ...mine, s: 'retry', expired: true, f: '42' }))).toEqual({ ...mine, s: 'retry', expired: true, f: '42' });
    expect(decodeClaim(Buffer.from('{"m":"x","a":1,"s":"held","t":0,"f":"-1"}'))).toEqual({ m: 'x', a: 1, s: 'held', t: 0 });
    expect(decodeClaim(Buffer.from('{"m":1}'))).toBeUndefined();
    expect(decodeClaim(Buffer.from('nope'))).toBeUndefined();
  });
});
