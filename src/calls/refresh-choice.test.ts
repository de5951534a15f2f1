import { describe, expect, it } from 'vitest';
import { refreshChoice } from './refresh-choice.js';

describe('where a refresh leaves a key its value holds', () => {
  it('keeps the key on a lease of ours that reaches the need on both scales, moves it above one that does not, and calls anything else foreign', () => {
    const need = { notBefore: 15_000, steadyNotBefore: 15_000 };
    const ours = (notBefore: number, steadyNotBefore = notBefore) => ({ id: '1200', notBefore, steadyNotBefore });
    expect(refreshChoice('1200', need, () => ours(12_000))).toEqual({ kind: 'move', reach: need });
    expect(refreshChoice('1200', need, () => ours(15_000))).toEqual({ kind: 'keep', onLease: ours(15_000) });
    expect(refreshChoice('1200', need, () => ours(19_000))).toEqual({ kind: 'keep', onLease: ours(19_000) });
    // Granted before a forward step: short on the lease-clock scale, long on the steady one. A move must reach both.
    expect(refreshChoice('1200', need, () => ours(12_000, 30_000))).toEqual({ kind: 'move', reach: { notBefore: 15_000, steadyNotBefore: 30_000 } });
    const known = (id: string) => (id === '1200' ? ours(12_000) : undefined);
    for (const foreign of ['0', '999', '2000', '7587871234567890123', '-5']) expect(refreshChoice(foreign, need, known)).toEqual({ kind: 'foreign' });
  });
});
