import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

const etcd = useEtcdCluster();

/**
 * The protected resource of Kleppmann's fencing argument: it remembers the highest token it has
 * accepted and refuses writes carrying a lower one, so a holder that paused past its lease (GC, a
 * stalled VM) cannot overwrite the work of the holder that came after it.
 */
class FencedStore {
  private highest = 0n;
  readonly writes: string[] = [];

  write(token: string, value: string): boolean {
    const t = BigInt(token);
    if (t < this.highest) return false;
    this.highest = t;
    this.writes.push(value);
    return true;
  }
}

describe('fencing tokens', () => {
  it('strictly increase from owner to owner across transfers, releases and expiries', async () => {
    const p = etcd.provider();
    const key = 'fenced';
    /** Every token each owner saw while it held the key, in order of ownership. */
    const seen: Array<{ owner: string; tokens: bigint[] }> = [];
    const record = async (owner: string, token?: string) => {
      const info = await p.getLease(key);
      expect(info?.owner).toBe(owner);
      const tokens = [BigInt(info!.fencingToken)];
      if (token !== undefined) tokens.unshift(BigInt(token));
      const last = seen.at(-1);
      if (last?.owner === owner) last.tokens.push(...tokens);
      else seen.push({ owner, tokens });
    };

    const a = await p.acquireLease(key, 'A', 5000);
    await record('A', a.fencingToken);
    expect(await p.renewLease(key, 'A', 5000)).toBe(true);
    await record('A');
    const again = await p.acquireLease(key, 'A', 5000); // idempotent re-acquire: same owner, fresh token
    await record('A', again.fencingToken);

    expect(await p.transferLease(key, 'A', 'B', 5000)).toBe(true);
    await record('B'); // the new owner reads its token with getLease
    await p.releaseLease(key, 'B');

    const c = await p.acquireLease(key, 'C', 1000);
    await record('C', c.fencingToken);
    // C stops renewing: etcd deletes the key when its lease expires.
    await waitFor('expiry', async () => ((await p.getLeaseOwner(key)) === undefined ? true : undefined), { timeoutMs: 10_000, intervalMs: 100 });

    const d = await p.acquireLease(key, 'D', 5000);
    await record('D', d.fencingToken);

    expect(seen.map((s) => s.owner)).toEqual(['A', 'B', 'C', 'D']);
    for (let i = 1; i < seen.length; i++) {
      const previousMax = seen[i - 1]!.tokens.reduce((m, t) => (t > m ? t : m));
      const firstOfNext = seen[i]!.tokens[0]!;
      expect(firstOfNext).toBeGreaterThan(previousMax);
    }
    // Within one ownership, tokens never go down either (a renew is a write: its revision is newer).
    for (const s of seen) expect([...s.tokens].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))).toEqual(s.tokens);
  });

  it('getLease reports owner, token and remaining TTL; a free key is undefined', async () => {
    const p = etcd.provider();
    expect(await p.getLease('free')).toBeUndefined();
    const won = await p.acquireLease('held', 'A', 5000);
    const info = await p.getLease('held');
    expect(info).toEqual({ owner: 'A', fencingToken: won.fencingToken, ttlRemainingMs: expect.any(Number) });
    expect(info!.ttlRemainingMs).toBeGreaterThanOrEqual(4000);
  });

  it('a protected resource that rejects stale tokens refuses the late write of a holder whose lease expired', async () => {
    const p = etcd.provider();
    const store = new FencedStore();
    const a = await p.acquireLease('resource', 'A', 1000);
    expect(store.write(a.fencingToken!, 'A: first')).toBe(true);
    // A "pauses" past its TTL; the lease expires and B takes over.
    const b = await waitFor(
      'B to acquire after A expired',
      async () => {
        const r = await p.acquireLease('resource', 'B', 5000);
        return r.acquired ? r : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(store.write(b.fencingToken!, 'B: takes over')).toBe(true);
    // A wakes up and writes with its old token: refused.
    expect(store.write(a.fencingToken!, 'A: late write')).toBe(false);
    expect(store.writes).toEqual(['A: first', 'B: takes over']);
  });

  it('keys committed in one group-commit batch each get a token, and it is the revision stored on the key', async () => {
    const p = etcd.provider();
    const keys = Array.from({ length: 16 }, (_, i) => `batch-${i}`);
    const results = await Promise.all(keys.map((k) => p.acquireLease(k, 'A', 5000)));
    const raw = etcd.rawClient();
    for (const [i, k] of keys.entries()) {
      const kv = await raw.get(`${p.prefix}${k}`).exec();
      expect(kv.kvs[0]!.mod_revision).toBe(results[i]!.fencingToken);
    }
  });
});
