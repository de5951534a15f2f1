import { EventEmitterPubSub } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import { checkOverlaps } from '../../safety-checker/check-overlaps.js';
import { Recorder } from '../../safety-checker/recorder.js';
import type { RecordedOp } from '../../safety-checker/types.js';
import { runHolder } from './holder.js';
import { createRng } from './rng.js';

/**
 * The chaos workload's holders, run against Mastra's in-memory lease provider (no etcd: correct by
 * construction, every call instantaneous): the checker must find nothing, and the holders must really
 * do what the chaos run counts on them doing.
 */
async function runInMemory(ms: number): Promise<RecordedOp[]> {
  const provider = new EventEmitterPubSub();
  const history: RecordedOp[] = [];
  let stopped = false;
  const inflight = new Set<Promise<unknown>>();
  const holders = Array.from({ length: 6 }, (_, i) =>
    runHolder({
      name: `h${i}`,
      keys: ['a', 'b', 'c'],
      ttlMs: 300,
      rng: createRng(1000 + i),
      recorder: new Recorder(`h${i}`, provider, (op) => history.push(op)),
      track: (call) => {
        inflight.add(call);
        void call.finally(() => inflight.delete(call));
        return call;
      },
      stopped: () => stopped,
    }),
  );
  await new Promise((r) => setTimeout(r, ms));
  stopped = true;
  await Promise.all(holders);
  await Promise.allSettled([...inflight]);
  return history;
}

describe('chaos holders', () => {
  it('against a correct in-memory provider they are never flagged, and they exercise every way a tenure ends', async () => {
    const history = await runInMemory(4000);
    expect(checkOverlaps(history)).toEqual([]);
    const ok = (op: RecordedOp['op']) => history.filter((o) => o.op === op && o.outcome === 'ok');
    expect(ok('renew').length).toBeGreaterThan(20);
    expect(ok('transfer').length).toBeGreaterThan(0);
    expect(history.filter((o) => o.op === 'acquire' && o.outcome === 'lost').length).toBeGreaterThan(0);
    // Taken again under the same owner string after its release.
    const reacquired = ok('release').filter((r) => ok('acquire').some((a) => a.owner === r.owner && a.key === r.key && a.sentAt >= r.sentAt));
    expect(reacquired.length).toBeGreaterThan(0);
    // Abandoned: an owner whose last call was a successful renew, with no release or transfer away.
    const lastOf = new Map<string, RecordedOp>();
    for (const o of history) lastOf.set(`${o.key}\u0000${o.owner}`, o);
    expect([...lastOf.values()].filter((o) => o.op === 'renew' && o.outcome === 'ok').length).toBeGreaterThan(0);
  }, 20_000);
});
