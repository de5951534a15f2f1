/**
 * The targets of issue 4, as pure checks on figures measured in one run. Ratios, not absolute
 * figures: absolute latencies move with machine load, ratios within one interleaved run much less.
 * A figure missing from the run (scenario filtered out with --only) yields SKIP, never PASS.
 */
export interface TargetFigures {
  rawTxnP50Ms?: number;
  acquireP50Ms?: number;
  rawTxn64OpsPerSecond?: number;
  acquire64OpsPerSecond?: number;
  redis64OpsPerSecond?: number;
  /** One entry per held-keys measurement (burst, spread): the bound must hold for each. */
  heldLeases?: ReadonlyArray<{ arrival: string; keys: number; liveLeases: number }>;
}

export type Verdict = 'PASS' | 'FAIL' | 'SKIP';

export interface TargetCheck {
  name: string;
  verdict: Verdict;
  /** The measured figure against the bound, e.g. `1.04× (limit 1.10×)`. */
  detail: string;
}

export const LIMITS = {
  acquireP50VsRawTxn: 1.1,
  acquire64VsRawTxn64: 10,
  acquire64VsRedis64: 0.3,
  liveLeasesPer20kKeys: 50,
} as const;

export function checkTargets(f: TargetFigures): TargetCheck[] {
  return [
    ratio('acquire p50 ≤ 1.1× raw Txn p50 (sequential)', f.acquireP50Ms, f.rawTxnP50Ms, (r) => r <= LIMITS.acquireP50VsRawTxn, `≤ ${LIMITS.acquireP50VsRawTxn}×`),
    ratio('acquire throughput ×64 ≥ 10× raw Txn ×64', f.acquire64OpsPerSecond, f.rawTxn64OpsPerSecond, (r) => r >= LIMITS.acquire64VsRawTxn64, `≥ ${LIMITS.acquire64VsRawTxn64}×`),
    ratio('acquire throughput ×64 ≥ 0.3× Redis SET NX ×64', f.acquire64OpsPerSecond, f.redis64OpsPerSecond, (r) => r >= LIMITS.acquire64VsRedis64, `≥ ${LIMITS.acquire64VsRedis64}×`),
    leases(f.heldLeases ?? []),
  ];
}

function ratio(name: string, measured: number | undefined, reference: number | undefined, ok: (r: number) => boolean, bound: string): TargetCheck {
  if (measured === undefined || reference === undefined || !(reference > 0) || !Number.isFinite(measured)) {
    return { name, verdict: 'SKIP', detail: 'not measured in this run' };
  }
  const r = measured / reference;
  return { name, verdict: ok(r) ? 'PASS' : 'FAIL', detail: `${r.toFixed(2)}× (target ${bound})` };
}

/**
 * The bound is stated for 20k keys; a smaller smoke run is held to the same absolute bound. Every
 * arrival pattern measured must meet it: a burst alone would hide a pool that grows with elapsed time.
 */
function leases(held: ReadonlyArray<{ arrival: string; keys: number; liveLeases: number }>): TargetCheck {
  const name = '≤ 50 live etcd leases for 20k held keys (one TTL)';
  if (held.length === 0) return { name, verdict: 'SKIP', detail: 'not measured in this run' };
  const verdict = held.every((h) => h.liveLeases <= LIMITS.liveLeasesPer20kKeys) ? 'PASS' : 'FAIL';
  return { name, verdict, detail: held.map((h) => `${h.liveLeases} live leases for ${h.keys} keys (${h.arrival})`).join('; ') };
}
