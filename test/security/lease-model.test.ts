import { EventEmitterPubSub } from '@mastra/core/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { opSequence } from './support/arbitraries.js';
import { LeaseModel, runOp } from './support/lease-model.js';

// The sequential model the hostile-input suite checks this provider against must *be* the anchor's
// semantics: run random sequences through Mastra's EventEmitterPubSub and the model side by side.
const TTL_MS = 60_000;

describe('the lease model', () => {
  it('matches EventEmitterPubSub on every sequence (with the anchor transfer rule)', async () => {
    await fc.assert(
      fc.asyncProperty(opSequence, async (sequence) => {
        const anchor = new EventEmitterPubSub();
        const model = new LeaseModel({ transferToHolderSucceeds: false });
        for (const [, op] of sequence) {
          expect(await runOp(anchor, op, TTL_MS), JSON.stringify(op)).toEqual(model.apply(op));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("differs from the anchor only in the documented transfer-to-holder case", () => {
    const model = new LeaseModel({ transferToHolderSucceeds: true });
    model.apply({ kind: 'acquire', key: 'k', owner: 'B' });
    // The anchor says false here; the provider says true (a retried transfer that already committed).
    expect(model.apply({ kind: 'transfer', key: 'k', from: 'A', to: 'B' })).toBe(true);
    expect(model.apply({ kind: 'transfer', key: 'k', from: 'A', to: 'C' })).toBe(false);
  });
});
