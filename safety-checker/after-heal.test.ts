import { describe, expect, it } from 'vitest';
import { allowedHolders } from './after-heal.js';
import { acquire, release, transfer } from './history.fixtures.js';

describe('allowedHolders: who may hold a key once every fault has healed', () => {
  it('the owner of the last belief window', () => {
    expect(allowedHolders([acquire('A', 0, 1), release('A', 10, 11), acquire('B', 20, 21)], 'k', [])).toEqual(new Set(['B']));
  });

  it('never an owner whose every write was answered and superseded', () => {
    const allowed = allowedHolders([acquire('A', 0, 1), acquire('C', 5, 6, { outcome: 'lost' }), release('A', 10, 11), acquire('B', 20, 21)], 'k', []);
    expect(allowed.has('A')).toBe(false);
    expect(allowed.has('C')).toBe(false);
  });

  it('an owner whose call threw: its write may have committed', () => {
    expect(allowedHolders([acquire('A', 0, 1), acquire('B', 5, 6, { outcome: 'error' })], 'k', [])).toEqual(new Set(['A', 'B']));
  });

  it('an acquire or transfer that was in flight during a fault, even answered lost: a held attempt may land later', () => {
    const history = [
      acquire('A', 0, 1),
      transfer('A', 'C', 3, 4, { outcome: 'lost' }),
      acquire('B', 5, 8, { outcome: 'lost' }),
      acquire('D', 20, 21),
    ];
    expect(allowedHolders(history, 'k', [{ start: 7, end: 9 }])).toEqual(new Set(['D', 'B']));
    expect(allowedHolders(history, 'k', [{ start: 2, end: 3 }])).toEqual(new Set(['D', 'C']));
    expect(allowedHolders(history, 'k', [{ start: 100, end: 110 }])).toEqual(new Set(['D']));
  });

  it('an acquire sent after the last window began (a retry whose first attempt committed late)', () => {
    expect(allowedHolders([acquire('A', 0, 1), acquire('B', 2, 3, { outcome: 'lost' })], 'k', [])).toEqual(new Set(['A', 'B']));
  });

  it('keys are judged apart, and a key nobody held allows only the writes that may have landed', () => {
    const history = [acquire('A', 0, 1, { key: 'other' }), acquire('B', 0, 1, { key: 'k', outcome: 'error' })];
    expect(allowedHolders(history, 'k', [])).toEqual(new Set(['B']));
    expect(allowedHolders(history, 'empty', [])).toEqual(new Set());
  });
});
