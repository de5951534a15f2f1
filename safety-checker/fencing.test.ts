import { describe, expect, it } from 'vitest';
import { checkFencingMonotonic } from './check-overlaps.js';
import { acquire, release, renew, transfer } from './history.fixtures.js';

const tok = (fencingToken: string) => ({ fencingToken });

const verdicts = (history: Parameters<typeof checkFencingMonotonic>[0]) =>
  checkFencingMonotonic(history).map((v) => [v.kind, v.earlier.owner, v.earlier.token, v.later.owner, v.later.token]);

describe('checkFencingMonotonic flags token regressions', () => {
  it('a new owner receiving a smaller token than the previous owner is flagged', () => {
    expect(verdicts([acquire('A', 0, 1, tok('7')), release('A', 10, 11), acquire('B', 12, 13, tok('5'))])).toEqual([
      ['handover-not-increasing', 'A', '7', 'B', '5'],
    ]);
  });

  it('a new owner receiving the SAME token as the previous owner is flagged (must strictly increase)', () => {
    expect(verdicts([acquire('A', 0, 1, tok('7')), release('A', 10, 11), acquire('B', 12, 13, tok('7'))])).toEqual([
      ['handover-not-increasing', 'A', '7', 'B', '7'],
    ]);
  });

  it('a new owner is compared with the largest token the previous owner ever received, refreshes included', () => {
    const history = [acquire('A', 0, 1, tok('5')), renew('A', 30, 31, tok('9')), release('A', 40, 41), acquire('B', 42, 43, tok('8'))];
    expect(verdicts(history)).toEqual([['handover-not-increasing', 'A', '9', 'B', '8']]);
  });

  it('an owner returning after another owner must exceed that owner\'s token, not just its own old one', () => {
    const history = [
      acquire('A', 0, 1, tok('10')),
      release('A', 5, 6),
      acquire('B', 7, 8, tok('20')),
      release('B', 9, 10),
      acquire('A', 11, 12, tok('15')),
    ];
    expect(verdicts(history)).toEqual([['handover-not-increasing', 'B', '20', 'A', '15']]);
  });

  it('a token handed over by a transfer counts as the receiver\'s', () => {
    expect(verdicts([acquire('A', 0, 1, tok('7')), transfer('A', 'B', 10, 11, tok('6'))])).toEqual([
      ['handover-not-increasing', 'A', '7', 'B', '6'],
    ]);
  });

  it('a refresh that lowers the owner\'s token after an earlier call returned is flagged', () => {
    expect(verdicts([acquire('A', 0, 1, tok('7')), renew('A', 30, 31, tok('6'))])).toEqual([
      ['refresh-decreased', 'A', '7', 'A', '6'],
    ]);
  });

  it('a refresh is compared with the largest token the owner already received, not the last one to return', () => {
    // The renew sent at 5 was applied before the acquire sent at 0 (token 5 < 9: fine),
    // but returned later; the renew sent at 30 must still beat 9.
    const history = [acquire('A', 0, 10, tok('9')), renew('A', 5, 20, tok('5')), renew('A', 30, 31, tok('7'))];
    expect(verdicts(history)).toEqual([['refresh-decreased', 'A', '9', 'A', '7']]);
  });

  it('tokens are compared as integers of any size, not as strings or doubles', () => {
    // As strings "10" < "9"; as doubles 2^53 + 1 and 2^53 are equal.
    expect(verdicts([acquire('A', 0, 1, tok('9')), release('A', 5, 6), acquire('B', 7, 8, tok('10'))])).toEqual([]);
    expect(
      verdicts([
        acquire('A', 0, 1, tok('9007199254740993')),
        release('A', 5, 6),
        acquire('B', 7, 8, tok('9007199254740992')),
      ]),
    ).toEqual([['handover-not-increasing', 'A', '9007199254740993', 'B', '9007199254740992']]);
  });
});

describe('checkFencingMonotonic accepts monotonic tokens', () => {
  it('strictly increasing tokens across successive owners pass', () => {
    const history = [
      acquire('A', 0, 1, tok('5')),
      release('A', 10, 11),
      acquire('B', 12, 13, tok('6')),
      transfer('B', 'C', 20, 21, tok('8')),
    ];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('an owner refreshing may keep its token or raise it', () => {
    const history = [acquire('A', 0, 1, tok('5')), renew('A', 30, 31, tok('5')), renew('A', 60, 61, tok('9'))];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('concurrent calls of one owner are not ordered against each other', () => {
    // The renew sent at 30 may have been applied before the one sent at 35.
    const history = [acquire('A', 0, 1, tok('5')), renew('A', 30, 50, tok('8')), renew('A', 35, 40, tok('9'))];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('a call returning at the very reading another is sent is not ordered before it', () => {
    // Equal clock readings: the acquire sent at 10 may have been applied first.
    const history = [acquire('A', 5, 10, tok('8')), acquire('A', 10, 11, tok('7'))];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('entries without a token are ignored', () => {
    const history = [
      acquire('A', 0, 1, tok('5')),
      release('A', 10, 11),
      acquire('B', 12, 13),
      release('B', 20, 21),
      acquire('C', 22, 23, tok('9')),
    ];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('tokens of different keys are not compared', () => {
    const history = [acquire('A', 0, 1, { key: 'k1', ...tok('10') }), acquire('B', 2, 3, { key: 'k2', ...tok('3') })];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('a grant returning after its own deadline does not lend its old token to the owner\'s next tenure', () => {
    // A's renew sent at 60 was applied in A's first tenure (token 2) but only returns at 175,
    // inside A's second tenure, after B's (token 3).
    const history = [
      acquire('A', 0, 1, tok('1')),
      renew('A', 60, 175, tok('2')),
      acquire('B', 150, 151, tok('3')),
      release('B', 160, 161),
      acquire('A', 170, 171, tok('5')),
    ];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });

  it('a token on a grant that opened no belief (returned after its ttl) is ignored', () => {
    const history = [acquire('A', 0, 200, tok('50')), acquire('B', 300, 301, tok('40'))];
    expect(checkFencingMonotonic(history)).toEqual([]);
  });
});
