import { forEachLimited } from '../infra/limited.js';
import { sampleMemory } from '../memory.js';
import { EtcdLeaseProvider } from '../provider-under-test.js';
import { BENCH_PREFIX, ownerToken } from '../scenarios/scenario.js';
import { takeKey } from './take-key.js';

/** What holding more keys than one provider can renew in time looked like to its callers. */
export interface OverloadResult {
  keys: number;
  ttlMs: number;
  windowS: number;
  /** Keys whose success windows (send time + ttl of each acquire and renewal answered true) covered the whole window. */
  heldThroughout: number;
  /** Renewals by result: `true`, `false` (the key was lost) or the error's code. */
  results: Record<string, number>;
  /** Longest a renewal took to settle, and how many settled later than the deadline plus 500 ms. */
  slowestMs: number;
  late: number;
  deadlineMs: number;
  /** Most renewals in progress at once, per key. */
  inProgressPerKey: number;
  /** RSS (after GC) at the end of the window over the process before the provider existed. */
  rssGrowthMb: number;
}

const SETUP_CALLERS = 64;

/**
 * Takes `keys` keys through one fresh provider and renews each every ttl/3 on a timer of its own (Mastra's cadence:
 * a timer never waits for the previous renewal, and stops once a renewal says the key is lost), for `windowMs`
 * after every timer has fired once. A key counts as held
 * throughout when, from its acquire to the end of the window, every moment lies in the window of some successful call
 * — what its holder could rely on — and no renewal said it was lost.
 */
export async function measureOverload(hosts: string[], keys: number, ttlMs: number, windowMs: number, runId: string): Promise<OverloadResult> {
  const before = sampleMemory('before');
  const provider = new EtcdLeaseProvider({ hosts, prefix: `${BENCH_PREFIX}overload/${runId}/` });
  const owner = ownerToken(0);
  const key = (i: number) => `resource-overload\u0000thread-${i}`;
  const deadlineMs = 5000;
  const period = ttlMs / 3;
  const windows: number[][] = Array.from({ length: keys }, () => []);
  const lost = new Set<number>();
  const results: Record<string, number> = {};
  let slowestMs = 0;
  let late = 0;
  let inProgress = 0;
  let mostInProgress = 0;
  let running = true;
  const timers: NodeJS.Timeout[] = [];
  const renew = (i: number) => {
    if (!running) return;
    const sentAt = performance.now();
    inProgress++;
    mostInProgress = Math.max(mostInProgress, inProgress);
    const settle = (result: string) => {
      inProgress--;
      const took = performance.now() - sentAt;
      slowestMs = Math.max(slowestMs, took);
      if (took > deadlineMs + 500) late++;
      results[result] = (results[result] ?? 0) + 1;
      if (result === 'true') windows[i]!.push(sentAt);
      // A lost key is renewed no more, as Mastra's runtime stops its timer.
      if (result === 'false') {
        lost.add(i);
        clearTimeout(timers[i]);
      }
    };
    provider.renewLease(key(i), owner, ttlMs).then(
      (ok) => settle(String(ok)),
      (error: unknown) => settle((error as { code?: string }).code ?? String(error)),
    );
  };
  const acquiredAt: number[] = new Array(keys);
  try {
    await forEachLimited(
      Array.from({ length: keys }, (_, i) => i),
      SETUP_CALLERS,
      async (i) => {
        acquiredAt[i] = await takeKey(provider, key(i), owner, ttlMs);
        windows[i]!.push(acquiredAt[i]!);
        timers[i] = setTimeout(() => {
          renew(i);
          timers[i] = setInterval(() => renew(i), period);
        }, period);
      },
    );
    const from = performance.now() + period;
    await new Promise((r) => setTimeout(r, period + windowMs));
    running = false;
    const to = performance.now();
    for (const t of timers) clearTimeout(t);
    const rss = sampleMemory('held').rssMb - before.rssMb;
    while (inProgress > 0) await new Promise((r) => setTimeout(r, 50));
    let heldThroughout = 0;
    windows.forEach((sent, i) => {
      if (!lost.has(i) && covered(sent.sort((a, b) => a - b), acquiredAt[i]!, to, ttlMs)) heldThroughout++;
    });
    return {
      keys,
      ttlMs,
      windowS: (to - from) / 1000,
      heldThroughout,
      results,
      slowestMs,
      late,
      deadlineMs,
      inProgressPerKey: mostInProgress / keys,
      rssGrowthMb: rss,
    };
  } finally {
    running = false;
    for (const t of timers) clearTimeout(t);
    await provider.close();
  }
}

/** Whether windows [s, s + ttl) for the sorted send times cover [from, to) without a gap. */
function covered(sentAts: readonly number[], from: number, to: number, ttlMs: number): boolean {
  let reach = from;
  for (const s of sentAts) {
    if (s > reach) return false;
    reach = Math.max(reach, s + ttlMs);
  }
  return reach >= to;
}

export function formatOverload(r: OverloadResult, capacity: number): string {
  const results = Object.entries(r.results)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return (
    `${(r.keys / capacity).toFixed(2)}× capacity (${r.keys} leases at TTL ${r.ttlMs / 1000} s) for ${r.windowS.toFixed(0)} s: ` +
    `${r.heldThroughout} held throughout (${((100 * r.heldThroughout) / r.keys).toFixed(0)} %); renewals: ${results}; ` +
    `slowest settled after ${r.slowestMs.toFixed(0)} ms (deadline ${r.deadlineMs} ms; ${r.late} later than deadline + 500 ms); ` +
    `at most ${r.inProgressPerKey.toFixed(2)} renewals in progress per key; RSS +${r.rssGrowthMb.toFixed(0)} MB`
  );
}
