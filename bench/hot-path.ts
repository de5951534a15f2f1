/**
 * The provider's own client CPU per acquire, with etcd answered in-process: no cluster, no gRPC, no lock needed.
 * What it measures is exactly what the provider adds on top of the perfect path (which builds the same
 * sub-transactions and pays the same gRPC encoding), so a change to the hot path shows here without the noise of a
 * shared machine — and under `node --cpu-prof` it shows where the time goes.
 *
 *   npm run build && node --expose-gc --import tsx bench/hot-path.ts [--callers 64] [--acquires 100000] [--source] [--alloc]
 *                                                                   [--renew KEYS]
 *
 * `--renew KEYS`: takes KEYS keys first, then measures renewals of them (round robin, `--acquires` of them in all)
 * instead of acquires: a held key's renewal as the capacity benchmark sends it, without its timers.
 *
 * `--alloc` also samples every allocation (V8's sampling heap profiler, collected objects included) and prints the
 * bytes allocated per acquire by the functions that allocate most: garbage is most of this path's CPU (GC), and
 * allocation counts, unlike CPU time, do not move with the machine's load.
 *
 * A fixed number of acquires, not a fixed time: the provider remembers every key it wrote until its lease ends, so
 * a faster run would hold more and pay more garbage collection per call. CPU time moves with the machine's load;
 * compare runs made back to back, and take the lowest of a few.
 *
 * `--source` loads src/ through tsx instead of the built dist/ (slower: tsx wraps every closure).
 */
import { parseArgs } from 'node:util';
import type { EtcdLeaseProvider as Provider } from '../src/index.js';
import { ownerToken, THREAD_TTL_MS } from './scenarios/scenario.js';

const { values } = parseArgs({
  options: {
    callers: { type: 'string', default: '64' },
    acquires: { type: 'string', default: '100000' },
    source: { type: 'boolean', default: false },
    alloc: { type: 'boolean', default: false },
    renew: { type: 'string' },
  },
});
const callers = Number(values.callers);
const acquires = Number(values.acquires);
const { EtcdLeaseProvider } = values.source ? await import('../src/index.js') : await import('./provider-under-test.js');

interface Req {
  compare?: unknown[];
  success?: Array<{ request_txn?: unknown }>;
}

let revision = 1;
const ANSWER_MS = 2;
let txns = 0;
/**
 * Answers like etcd would for fresh keys: every acquire takes its key. A batch answers each sub-transaction. After
 * 2 ms, about a commit's round trip here: an instant answer would let batches leave a few calls at a time, and the
 * per-batch work would weigh far more than with a real cluster (mean batch 63 of 64 at 64 callers).
 */
const fakeEtcd = {
  kv: {
    txn: (req: Req) =>
      new Promise((resolve) =>
        setTimeout(() => {
          const rev = String(++revision);
          txns++;
          const success = req.success ?? [];
          const batch = (req.compare ?? []).length === 0 && success.length > 0 && success.every((op) => op.request_txn);
          resolve({
            header: { revision: rev },
            succeeded: true,
            responses: batch ? success.map(() => ({ response_txn: { succeeded: true, responses: [{ response_put: {} }] } })) : [{ response_put: {} }],
          });
        }, ANSWER_MS),
      ),
  },
  leaseClient: {
    leaseGrant: (req: { TTL: number; ID: string }) => Promise.resolve({ ID: req.ID, TTL: String(req.TTL) }),
  },
  close: () => {},
};

const provider: Provider = new EtcdLeaseProvider({ client: fakeEtcd as never, prefix: 'hot/' });
let seq = 0;
const run = async (count: number) => {
  let ops = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      const owner = ownerToken(c);
      while (ops < count) {
        const res = await provider.acquireLease(`resource-hot\u0000thread-${seq++}`, owner, THREAD_TTL_MS);
        if (!res.acquired) throw new Error('not acquired');
        ops++;
      }
    }),
  );
  return ops;
};

const renewKeys = values.renew === undefined ? 0 : Number(values.renew);
let renewSeq = 0;
/** Renewals of the first `renewKeys` keys taken, round robin (each key by its own owner's caller, one call at a time). */
const renewRun = async (count: number) => {
  let ops = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      const owner = ownerToken(0);
      while (ops < count) {
        const i = renewSeq++ % renewKeys;
        if (!(await provider.renewLease(`resource-hot\u0000thread-${i}`, owner, THREAD_TTL_MS))) throw new Error('not renewed');
        ops++;
      }
      void c;
    }),
  );
  return ops;
};
if (renewKeys > 0) {
  // The keys, all by one owner, as the capacity benchmark holds them; then renewals warm up.
  for (let i = 0; i < renewKeys; i += callers) {
    await Promise.all(Array.from({ length: Math.min(callers, renewKeys - i) }, (_, j) => provider.acquireLease(`resource-hot\u0000thread-${i + j}`, ownerToken(0), THREAD_TTL_MS)));
  }
  await renewRun(20_000);
} else {
  await run(20_000); // warm-up: JIT, the pool's first lease
}
(globalThis as { gc?: () => void }).gc?.();
const sampler = values.alloc ? await startAllocationSampling() : undefined;
const from = process.cpuUsage();
txns = 0;
const started = performance.now();
const ops = renewKeys > 0 ? await renewRun(acquires) : await run(acquires);
const cpu = process.cpuUsage(from);
const wall = performance.now() - started;
const what = renewKeys > 0 ? `renewals of ${renewKeys} held keys` : 'acquires';
console.log(
  `${callers} callers, ${ops} ${what} in ${(wall / 1000).toFixed(1)} s: ${((cpu.user + cpu.system) / ops).toFixed(2)} µs CPU per call ` +
    `(provider machinery only; etcd answered in-process; mean batch ${(ops / txns).toFixed(1)})`,
);
if (sampler) await sampler.report(ops);
await provider.close();

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

async function startAllocationSampling(): Promise<{ report(ops: number): Promise<void> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  return {
    async report(ops) {
      const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
      const bySite = new Map<string, number>();
      const walk = (n: ProfileNode) => {
        const site = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
        bySite.set(site, (bySite.get(site) ?? 0) + n.selfSize);
        for (const c of n.children) walk(c);
      };
      walk(profile.head);
      const total = [...bySite.values()].reduce((a, b) => a + b, 0);
      console.log(`allocated per acquire: ${(total / ops).toFixed(0)} bytes (sampled); largest sites:`);
      for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${(bytes / ops).toFixed(0).padStart(7)}  ${site}`);
      session.disconnect();
    },
  };
}
