import { describe, expect, it } from 'vitest';
import { Recorder, type RecordableProvider } from './recorder.js';
import type { RecordedOp } from './types.js';

/** A scripted provider on a clock the test moves: each call takes one tick. */
function setup(overrides: Partial<RecordableProvider> = {}) {
  let time = 0;
  const tick = async () => {
    time += 1;
  };
  const provider: RecordableProvider = {
    acquireLease: async () => (await tick(), { acquired: true, fencingToken: '7' }),
    renewLease: async () => (await tick(), true),
    releaseLease: async () => tick(),
    transferLease: async () => (await tick(), true),
    getLease: async () => (await tick(), { owner: 'A', fencingToken: '9' }),
    ...overrides,
  };
  const ops: RecordedOp[] = [];
  const recorder = new Recorder('c1', provider, (op) => ops.push(op), () => time);
  return { recorder, ops };
}

describe('Recorder', () => {
  it('records each call with its send and return time, outcome and token', async () => {
    const { recorder, ops } = setup();
    expect(await recorder.acquire('k', 'A', 100)).toBe(true);
    expect(ops).toEqual([{ client: 'c1', key: 'k', owner: 'A', op: 'acquire', ttlMs: 100, sentAt: 0, returnedAt: 1, outcome: 'ok', fencingToken: '7' }]);
  });

  it('a renew that answers true is recorded with the token read after it, returning after the read', async () => {
    const { recorder, ops } = setup();
    await recorder.renew('k', 'A', 100);
    expect(ops[0]).toMatchObject({ op: 'renew', outcome: 'ok', sentAt: 0, returnedAt: 2, fencingToken: '9' });
  });

  it('a renew whose read shows another owner, or fails, is recorded without a token', async () => {
    for (const getLease of [async () => ({ owner: 'B', fencingToken: '9' }), async () => Promise.reject(new Error('down'))]) {
      const { recorder, ops } = setup({ getLease });
      await recorder.renew('k', 'A', 100);
      expect(ops[0]?.outcome).toBe('ok');
      expect(ops[0]?.fencingToken).toBeUndefined();
    }
  });

  it('errors are recorded as outcomes, never thrown; a lost acquire carries no token', async () => {
    const fail = async () => Promise.reject(new Error('unavailable'));
    const { recorder, ops } = setup({ acquireLease: fail, renewLease: fail, releaseLease: fail, transferLease: fail });
    expect(await recorder.acquire('k', 'A', 100)).toBeUndefined();
    expect(await recorder.renew('k', 'A', 100)).toBeUndefined();
    expect(await recorder.release('k', 'A')).toBe(false);
    expect(await recorder.transfer('k', 'A', 'B', 100)).toBeUndefined();
    expect(ops.map((o) => o.outcome)).toEqual(['error', 'error', 'error', 'error']);
    expect(ops[3]?.toOwner).toBe('B');

    const lost = setup({ acquireLease: async () => ({ acquired: false }) });
    await lost.recorder.acquire('k', 'A', 100);
    expect(lost.ops[0]).toMatchObject({ outcome: 'lost' });
    expect(lost.ops[0]?.fencingToken).toBeUndefined();
  });
});
