import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../../operations/etcd-txn.js';
import { encodeClaim, type ClaimValue } from './claim-txns.js';
import { joinFloor } from './group-checkpoint.js';
import { encodeMemberState } from './group-state.js';

const kv = (value: Buffer): KeyValue => ({ key: Buffer.from('k'), value, mod_revision: '5', create_revision: '5', lease: '7' });
const member = (floor?: string) => kv(encodeMemberState('active', floor));
const claim = (value: Partial<ClaimValue> = {}) => kv(encodeClaim({ m: 'x', a: 1, s: 'done', t: 0, ...value }));

describe('where a join starts', () => {
  it('a new group (no member, no claim) starts where startFrom says', () => {
    expect(joinFloor([], [], 'latest', '120')).toBe('120');
    expect(joinFloor([], [], 'earliest', '120')).toBe('0');
  });

  it('an existing group keeps its floor whatever startFrom says: from a member key, or from a claim when no member is left', () => {
    expect(joinFloor([member('90')], [], 'latest', '120')).toBe('90');
    expect(joinFloor([member('90')], [], 'earliest', '120')).toBe('90');
    expect(joinFloor([], [claim({ f: '90' })], 'latest', '120')).toBe('90');
    expect(joinFloor([], [claim()], 'latest', '120')).toBe('0'); // a group that started from the earliest event
  });

  it('members that disagree are settled towards delivering: the lowest floor', () => {
    expect(joinFloor([member('90'), member('70')], [claim({ f: '80' })], 'latest', '120')).toBe('70');
  });
});
