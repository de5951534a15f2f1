import { describe, expect, it } from 'vitest';
import { acquireTxn } from '../operations/acquire.js';
import { nested } from '../operations/etcd-txn.js';
import { releaseTxn } from '../operations/release.js';
import { renewTxn } from '../operations/renew.js';
import { countedByQuota, quotaCounted, SpaceAlarm, writesKeys } from './space-alarm.js';

const own = { lowest: '1', highest: '9' };
const k = Buffer.from('k');
const v = Buffer.from('o');

describe('space alarm', () => {
  it('refuses writes once raised, lets one probe through per gap, and clears when a probe is applied', () => {
    const changes: boolean[] = [];
    const alarm = new SpaceAlarm(100, (raised) => changes.push(raised));
    expect(alarm.admit(0)).toBe('send');
    alarm.raise(10);
    expect(alarm.raised).toBe(true);
    expect(alarm.refusing(50)).toBe(true);
    expect(alarm.admit(50)).toBe('refuse');
    expect(alarm.admit(110)).toBe('probe');
    expect(alarm.admit(500)).toBe('refuse'); // one probe at a time
    alarm.raise(520); // the probe was refused: raised still, and it counts as the probe
    alarm.probeEnded(520, false);
    expect(alarm.admit(600)).toBe('refuse');
    expect(alarm.admit(620)).toBe('probe');
    alarm.probeEnded(630, true);
    expect(alarm.raised).toBe(false);
    expect(alarm.admit(631)).toBe('send');
    expect(changes).toEqual([true, false]);
  });

  it('a probe that failed for another reason (a timeout) says nothing: the next one is due a gap later', () => {
    const alarm = new SpaceAlarm(100);
    alarm.raise(0);
    expect(alarm.admit(100)).toBe('probe');
    alarm.probeEnded(600, false);
    expect(alarm.raised).toBe(true);
    expect(alarm.admit(650)).toBe('refuse');
    expect(alarm.admit(700)).toBe('probe');
  });

  it('knows which requests put keys, and which ones etcd quota counts', () => {
    const batch = { compare: [], success: [nested(acquireTxn(k, v, '5', own))], failure: [] };
    expect(writesKeys(acquireTxn(k, v, '5', own))).toBe(true);
    expect(writesKeys(renewTxn(k, v, '5', own))).toBe(true);
    expect(writesKeys(releaseTxn(k, v, '7'))).toBe(false);
    expect(writesKeys(batch)).toBe(true);
    expect(countedByQuota(acquireTxn(k, v, '5', own))).toBe(true);
    expect(countedByQuota(releaseTxn(k, v, '7'))).toBe(true); // nothing to count
    // etcd prices a Txn by its top-level puts: a batch of nested ones costs nothing, and is written under the alarm.
    expect(countedByQuota(batch)).toBe(false);
    const counted = quotaCounted(batch, Buffer.from('prefix/'));
    expect(countedByQuota(counted)).toBe(true);
    // The put sits in the failure branch of a Txn without compares: etcd never carries it out.
    expect(counted.compare).toEqual([]);
    expect(counted.success).toBe(batch.success);
    expect(counted.failure).toEqual([{ request_put: { key: Buffer.from('prefix/') } }]);
  });
});
