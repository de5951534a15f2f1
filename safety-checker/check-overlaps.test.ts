import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkOverlaps, findOverlaps } from './check-overlaps.js';
import { acquire, release, renew, transfer, TTL } from './history.fixtures.js';
import type { BeliefWindow } from './types.js';

const pairs = (history: Parameters<typeof checkOverlaps>[0]) =>
  checkOverlaps(history).map((v) => [v.first.owner, v.second.owner, v.overlapMs]);

describe('checkOverlaps flags histories where two owners believed at once', () => {
  it('two owners whose acquires both succeed within one ttl overlap', () => {
    expect(pairs([acquire('A', 0, 1), acquire('B', 10, 11)])).toEqual([['A', 'B', TTL - 11]]);
  });

  it('a renew sent after the ttl expired, reporting ok after another owner acquired, overlaps that owner', () => {
    // A's lease lapsed at 100 and B took the key at 121; a provider that then lets A's
    // renew succeed makes A believe again while B does.
    const violations = checkOverlaps([acquire('A', 0, 1), acquire('B', 120, 121), renew('A', 150, 152)]);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({
      key: 'k',
      first: { owner: 'B', start: 121, end: 220 },
      second: { owner: 'A', start: 152, end: 250 },
      overlapMs: 220 - 152,
    });
  });

  it('another owner acquiring before the holder\'s lease ran out overlaps, even if the holder later hears it lost', () => {
    expect(pairs([acquire('A', 0, 1), acquire('B', 40, 45), renew('A', 30, 60, { outcome: 'lost' })])).toEqual([
      ['A', 'B', 15],
    ]);
  });

  it('a release by someone who is not the holder does not end the holder\'s belief', () => {
    expect(pairs([acquire('A', 0, 1), release('B', 10, 11), acquire('C', 20, 21)])).toEqual([['A', 'C', 79]]);
  });

  it('a transfer whose receiver takes over before the giver sent it overlaps', () => {
    // B's window opens at 30 from an acquire; A only hands over at 50.
    expect(pairs([acquire('A', 0, 1), acquire('B', 20, 30), transfer('A', 'B', 50, 51)])).toEqual([['A', 'B', 20]]);
  });

  it('reports every overlapping pair, on every key', () => {
    const violations = checkOverlaps([
      acquire('A', 0, 1),
      acquire('B', 2, 3),
      acquire('C', 4, 5),
      acquire('X', 0, 1, { key: 'other' }),
      acquire('Y', 0, 1, { key: 'other' }),
    ]);
    expect(violations.map((v) => [v.key, v.first.owner, v.second.owner])).toEqual([
      ['k', 'A', 'B'],
      ['k', 'A', 'C'],
      ['k', 'B', 'C'],
      ['other', 'X', 'Y'],
    ]);
  });
});

describe('checkOverlaps accepts histories of a correct provider', () => {
  it('release, then acquire by another owner, does not overlap', () => {
    expect(checkOverlaps([acquire('A', 0, 1), release('A', 40, 41), acquire('B', 41, 42)])).toEqual([]);
  });

  it('an acquire sent before the release but returning after it was sent does not overlap', () => {
    expect(checkOverlaps([acquire('A', 0, 1), acquire('B', 35, 45), release('A', 40, 41)])).toEqual([]);
  });

  it('a transfer handoff exactly back-to-back does not overlap (windows are half-open)', () => {
    expect(
      checkOverlaps([acquire('A', 0, 1), transfer('A', 'B', 40, 40), renew('B', 60, 61), release('B', 90, 91)]),
    ).toEqual([]);
  });

  it('a lease that expired, then acquired by another owner exactly at the deadline, does not overlap', () => {
    expect(checkOverlaps([acquire('A', 0, 1), acquire('B', 95, TTL)])).toEqual([]);
  });

  it('a lease that expired with its renew still in flight, then acquired by another, does not overlap', () => {
    // A's renew was sent late; the provider correctly says false because B got the key.
    expect(
      checkOverlaps([acquire('A', 0, 1), renew('A', 99, 130, { outcome: 'lost' }), acquire('B', 101, 105)]),
    ).toEqual([]);
  });

  it('a renew that threw does not extend belief into the next owner\'s tenure', () => {
    expect(checkOverlaps([acquire('A', 0, 1), renew('A', 50, 60, { outcome: 'error' }), acquire('B', 100, 101)])).toEqual(
      [],
    );
  });

  it('a renew in flight across the holder\'s own release does not revive belief', () => {
    expect(checkOverlaps([acquire('A', 0, 1), renew('A', 30, 50), release('A', 40, 41), acquire('B', 42, 43)])).toEqual(
      [],
    );
  });

  it('two clients sharing one owner token are one owner, not an overlap', () => {
    expect(checkOverlaps([acquire('A', 0, 1, { client: 'c1' }), acquire('A', 10, 11, { client: 'c2' })])).toEqual([]);
  });

  it('two owners holding different keys at once do not overlap', () => {
    expect(checkOverlaps([acquire('A', 0, 1, { key: 'k1' }), acquire('B', 0, 1, { key: 'k2' })])).toEqual([]);
  });
});

describe('findOverlaps', () => {
  const window = (owner: string, start: number, end: number): BeliefWindow => ({
    key: 'k',
    owner,
    start,
    end,
    endedBy: 'ttl',
    grants: [],
  });

  it('windows sharing only an endpoint do not overlap; sharing one instant more does', () => {
    expect(findOverlaps([window('A', 0, 10), window('B', 10, 20)])).toEqual([]);
    expect(findOverlaps([window('A', 0, 10.5), window('B', 10, 20)])).toHaveLength(1);
  });

  it('finds a long window overlapping a later one past shorter windows in between', () => {
    const found = findOverlaps([window('A', 0, 100), window('A', 10, 20), window('B', 90, 95)]);
    expect(found.map((v) => [v.first.start, v.second.start])).toEqual([[0, 90]]);
  });

  it('reports exactly the pairs of different owners that share an instant (brute-force comparison)', () => {
    const arbWindow = fc
      .record({ owner: fc.constantFrom('A', 'B', 'C'), start: fc.integer({ min: 0, max: 50 }), len: fc.integer({ min: 1, max: 20 }) })
      .map(({ owner, start, len }) => window(owner, start, start + len));
    fc.assert(
      fc.property(fc.array(arbWindow, { maxLength: 12 }), (windows) => {
        const expected = new Set<string>();
        windows.forEach((a, i) =>
          windows.forEach((b, j) => {
            if (i < j && a.owner !== b.owner && a.start < b.end && b.start < a.end) expected.add(pairId(i, j));
          }),
        );
        // Identity, not value: equal windows may appear twice and must both be reported.
        const actual = findOverlaps(windows).map((v) => pairId(windows.indexOf(v.first), windows.indexOf(v.second)));
        expect(new Set(actual)).toEqual(expected);
        expect(actual).toHaveLength(expected.size);
      }),
    );
  });
});

function pairId(i: number, j: number): string {
  return i < j ? `${i}|${j}` : `${j}|${i}`;
}
