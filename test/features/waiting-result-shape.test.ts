/**
 * `waitForLease` and `hold()` with both settings of `contractResults`, counting etcd writes.
 *
 * `contractResults: true` changes what `acquireLease` resolves to (exactly `{ acquired, owner }`); it must not change
 * what a waiter does. A waiter decides on the provider's own answer, so whichever the setting it costs O(1) writes per
 * change of holder: a lost attempt writes nothing, a won attempt writes once, and once it has won it writes nothing
 * more. Writes are counted in etcd revisions: every committed write transaction adds exactly one, and only this
 * file's clients write to its cluster.
 */
import { describe, expect, it } from 'vitest';
import type { EtcdLeaseProvider, LeaseEvent } from '../../src/index.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

const etcd = useEtcdCluster();
// Long enough that neither a renewal nor the waiter's 1–5 s safety-net re-check happens inside a measured window.
const TTL = 30_000;
// Short enough that a waiter that never settles fails the test quickly.
const WAIT_MS = 4000;

let raw: ReturnType<typeof etcd.rawClient> | undefined;
async function revision(): Promise<bigint> {
  raw ??= etcd.rawClient();
  return BigInt((await raw.kv.range({ key: Buffer.from('revision probe') })).header.revision);
}

/** Writes the cluster committed since `from`. */
async function writesSince(from: bigint): Promise<number> {
  return Number((await revision()) - from);
}

/** `waiting`'s result; if it rejects, the error says how many writes were committed meanwhile. */
function settled<T>(waiting: Promise<T>, from: bigint): Promise<T> {
  return waiting.catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}; ${await writesSince(from)} etcd writes meanwhile`, { cause: error });
  });
}

for (const contractResults of [false, true]) {
  describe(`waiting with contractResults: ${contractResults}`, () => {
    /**
     * Key `k` held by A (on a provider of its own, `others`), and a waiter W started on it by `start`; resolves once
     * W has lost twice — its first attempt, then the re-check once its watch is connected — so W is on its watch.
     * `from` is the revision before W's first attempt.
     */
    async function contended<T>(start: (w: EtcdLeaseProvider) => Promise<T>) {
      const prefix = etcd.uniquePrefix();
      const others = etcd.provider({ prefix });
      const events: LeaseEvent[] = [];
      const w = etcd.provider({ prefix, contractResults, onEvent: (e) => events.push(e) });
      await others.acquireLease('k', 'A', TTL);
      const from = await revision();
      const waiting = settled(start(w), from);
      waiting.catch(() => {}); // awaited by the test; a rejection before then is not unhandled
      const losses = () => events.filter((e) => e.type === 'contended').length;
      await waitFor('the waiter to be on its watch', () => (losses() >= 2 ? true : undefined), { timeoutMs: 5000 });
      return { others, from, waiting };
    }

    it("acquireLease keeps the shape the option chooses; the 'acquired' event carries the token either way", async () => {
      const events: LeaseEvent[] = [];
      const p = etcd.provider({ contractResults, onEvent: (e) => events.push(e) });
      const won = await p.acquireLease('k', 'W', TTL);
      if (contractResults) expect(won).toEqual({ acquired: true, owner: 'W' });
      else expect(won).toEqual({ acquired: true, owner: 'W', fencingToken: expect.stringMatching(/^\d+$/) });
      const token = (await p.getLease('k'))?.fencingToken;
      expect(events.filter((e) => e.type === 'acquired')).toEqual([expect.objectContaining({ owner: 'W', fencingToken: token })]);
    });

    it('waitForLease on a free key: one write, a fencing token, nothing written afterwards', async () => {
      const provider = etcd.provider({ contractResults });
      const before = await revision();
      const won = await settled(provider.waitForLease('free', 'W', TTL, { timeoutMs: WAIT_MS }), before);
      expect(won).toEqual({ acquired: true, owner: 'W', fencingToken: expect.stringMatching(/^\d+$/) });
      const afterWin = await revision();
      expect(Number(afterWin - before)).toBe(1);
      expect((await provider.getLease('free'))?.fencingToken).toBe(won.fencingToken);
      // Its watch is closed and its loop has ended: a further read finds no write of its own.
      expect(await writesSince(afterWin)).toBe(0);
    });

    it('waitForLease through two changes of holder: no write while another holds the key, one to win', async () => {
      const { others, from, waiting } = await contended((w) => w.waitForLease('k', 'W', TTL, { timeoutMs: WAIT_MS }));
      expect(await writesSince(from)).toBe(0); // both lost attempts wrote nothing
      expect(await others.transferLease('k', 'A', 'C', TTL)).toBe(true); // a change of holder that is not for W
      await others.releaseLease('k', 'C'); // a change of holder that frees the key
      expect((await waiting).owner).toBe('W');
      // transfer + release by the others, and the waiter's one winning write
      expect(await writesSince(from)).toBe(3);
    });

    it('waitForLease handed the key by a transfer: one confirming write', async () => {
      const { others, from, waiting } = await contended((w) => w.waitForLease('k', 'W', TTL, { timeoutMs: WAIT_MS }));
      expect(await others.transferLease('k', 'A', 'W', TTL)).toBe(true);
      expect((await waiting).owner).toBe('W');
      expect(await writesSince(from)).toBe(2);
    });

    it('hold on a contended key: wins with one write, its handle carries the token, release deletes', async () => {
      const { others, from, waiting } = await contended((w) => w.hold('k', 'W', TTL, { timeoutMs: WAIT_MS }));
      await others.releaseLease('k', 'A');
      const handle = await waiting;
      const afterWin = await revision();
      expect(Number(afterWin - from)).toBe(2);
      expect(handle.fencingToken).toMatch(/^\d+$/);
      expect((await others.getLease('k'))?.fencingToken).toBe(handle.fencingToken);
      expect(handle.signal.aborted).toBe(false);
      // A renewal is ttl/3 = 10 s away: nothing else is written meanwhile.
      expect(await writesSince(afterWin)).toBe(0);
      await handle.release();
      expect(await others.getLeaseOwner('k')).toBeUndefined();
    });
  });
}
