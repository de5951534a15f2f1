import { CompareResult, CompareTarget } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';

/**
 * Among members that all answer, the provider sends its attempts to the leader (transport/leader-finder.ts): a write
 * sent to a follower is forwarded and answered only once the follower has applied it. Which member served a call
 * is read from etcd itself — each member's count of Txn calls it handled (`grpc_server_handled_total` on /metrics)
 * — with a plain etcd3 client beside it as the control that spreads its calls over every member.
 */
const etcd = useEtcdCluster();

const CALLS = 150;

/** Txn calls each member has handled so far. */
async function txnsHandled(): Promise<number[]> {
  return Promise.all(
    etcd.cluster.members().map(async (m) => {
      const page = await (await fetch(`${etcd.cluster.endpoint(m.index)}/metrics`)).text();
      let n = 0;
      for (const line of page.split('\n')) if (line.startsWith('grpc_server_handled_total{') && line.includes('grpc_method="Txn"')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
      return n;
    }),
  );
}

/** The share of the Txn calls `run` made that member `i` handled. */
async function shareOf(i: number, run: () => Promise<void>): Promise<number> {
  const before = await txnsHandled();
  await run();
  const delta = (await txnsHandled()).map((n, j) => n - before[j]!);
  const total = delta.reduce((a, b) => a + b, 0);
  return total === 0 ? 0 : delta[i]! / total;
}

let seq = 0;
/** One acquire after another, each on a fresh key: each is one Txn of its own. */
const acquires = (provider: ReturnType<typeof etcd.provider>, n: number) => async () => {
  for (let k = 0; k < n; k++) expect(await provider.acquireLease(`route-${seq++}`, 'A', 30_000)).toMatchObject({ acquired: true });
};

/** Hands leadership to the next member; its index. */
async function moveLeaderAway(): Promise<number> {
  const target = ((await etcd.cluster.leader()) + 1) % etcd.cluster.size;
  await etcd.cluster.moveLeader(target);
  return target;
}

describe('attempts go to the leader', () => {
  it('the provider’s transactions land on the leader; a plain etcd3 client’s spread over every member', async () => {
    const leader = await etcd.cluster.leader();
    const provider = etcd.provider();
    // The first answer starts the search for the leader: from then on its calls go there.
    await waitFor('the provider’s calls to reach the leader', async () => (await shareOf(leader, acquires(provider, 10))) === 1, { timeoutMs: 10_000 });
    expect(await shareOf(leader, acquires(provider, CALLS))).toBeGreaterThanOrEqual(0.95);

    const plain = etcd.rawClient();
    const plainShare = await shareOf(leader, async () => {
      for (let k = 0; k < CALLS; k++) {
        const key = Buffer.from(`${etcd.uniquePrefix()}plain-${k}`);
        await plain.kv.txn({ compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }], success: [{ request_put: { key, value: Buffer.from('A') } }], failure: [] });
      }
    });
    expect(plainShare).toBeLessThan(0.7); // etcd3 picks a member at random: about a third
  }, 60_000);

  it('after leadership moves, the next calls follow it to the new leader', async () => {
    const provider = etcd.provider();
    await acquires(provider, 5)();
    const leader = await moveLeaderAway();
    // The new term shows in the next answers; the provider asks for the leader again and goes there.
    await waitFor('the provider’s calls to follow the new leader', async () => (await shareOf(leader, acquires(provider, 10))) === 1, { timeoutMs: 15_000 });
    expect(await shareOf(leader, acquires(provider, CALLS))).toBeGreaterThanOrEqual(0.95);
  }, 60_000);
});
