/**
 * The benchmark's performance targets, as pure checks on figures measured in one run. Ratios, not absolute figures: absolute
 * latencies move with machine load, ratios within one interleaved run much less. The throughput reference is a
 * hand-built "perfect" batch with as many keys in flight as the provider's callers (1×64 for 64 callers, 4×64 for
 * 256): what this cluster on this machine can do at all. A figure missing from the run (scenario filtered out with
 * --only) yields SKIP, never PASS.
 */
export interface TargetFigures {
  rawTxnP50Ms?: number;
  acquireP50Ms?: number;
  /** Provider and perfect batch at 64 and at 256 keys in flight: keys/s and client CPU µs per key. */
  acquire64?: Throughput;
  perfect64?: Throughput;
  acquire256?: Throughput;
  perfect256?: Throughput;
  /** One entry per held-keys measurement (burst, spread): the bound must hold for each. */
  heldLeases?: ReadonlyArray<{ arrival: string; keys: number; liveLeases: number }>;
  /** The provider's hold cost: committed proposals/s and renewals/s at the configurations the targets name. */
  hold1000Ttl15?: HoldFigure;
  hold2000Ttl3?: HoldFigure;
}

export interface Throughput {
  opsPerSecond: number;
  cpuUsPerOp: number;
}

export interface HoldFigure {
  keys: number;
  proposalsPerSecond: number;
  renewsPerSecond: number;
}

export type Verdict = 'PASS' | 'FAIL' | 'SKIP';

export interface TargetCheck {
  name: string;
  verdict: Verdict;
  /** The measured figure against the bound, e.g. `1.04× (target ≤ 1.1×)`. */
  detail: string;
}

const LIMITS = {
  acquireP50VsRawTxn: 1.1,
  acquireVsPerfect: 0.9,
  cpuVsPerfect: 1.4,
  liveLeasesPer20kKeys: 50,
  proposalsPerSecondPer1000Ttl15: 10,
  proposalsPerRenewTtl3: 0.05,
} as const;

export function checkTargets(f: TargetFigures): TargetCheck[] {
  const ops = (t?: Throughput) => t?.opsPerSecond;
  const cpu = (t?: Throughput) => t?.cpuUsPerOp;
  return [
    ratio('acquire p50 ≤ 1.1× raw Txn p50 (sequential)', f.acquireP50Ms, f.rawTxnP50Ms, (r) => r <= LIMITS.acquireP50VsRawTxn, `≤ ${LIMITS.acquireP50VsRawTxn}×`),
    ratio('acquire ×64 ≥ 0.9× perfect batch 1×64 (keys/s)', ops(f.acquire64), ops(f.perfect64), (r) => r >= LIMITS.acquireVsPerfect, `≥ ${LIMITS.acquireVsPerfect}×`),
    ratio('acquire ×256 ≥ 0.9× perfect batches 4×64 (keys/s)', ops(f.acquire256), ops(f.perfect256), (r) => r >= LIMITS.acquireVsPerfect, `≥ ${LIMITS.acquireVsPerfect}×`),
    ratio('client CPU per acquire ×64 ≤ 1.4× perfect 1×64 per key', cpu(f.acquire64), cpu(f.perfect64), (r) => r <= LIMITS.cpuVsPerfect, `≤ ${LIMITS.cpuVsPerfect}×`),
    ratio('client CPU per acquire ×256 ≤ 1.4× perfect 4×64 per key', cpu(f.acquire256), cpu(f.perfect256), (r) => r <= LIMITS.cpuVsPerfect, `≤ ${LIMITS.cpuVsPerfect}×`),
    leases(f.heldLeases ?? []),
    bound(
      '≤ 10 committed proposals/s per 1000 leases held at TTL 15 s',
      f.hold1000Ttl15 && (f.hold1000Ttl15.proposalsPerSecond * 1000) / f.hold1000Ttl15.keys,
      LIMITS.proposalsPerSecondPer1000Ttl15,
      (v) => `${v.toFixed(1)} per 1000 leases`,
    ),
    bound(
      '≤ 0.05 committed proposals per renew, 2000 leases at TTL 3 s',
      f.hold2000Ttl3 && f.hold2000Ttl3.renewsPerSecond > 0 ? f.hold2000Ttl3.proposalsPerSecond / f.hold2000Ttl3.renewsPerSecond : undefined,
      LIMITS.proposalsPerRenewTtl3,
      (v) => `${v.toFixed(3)} per renew`,
    ),
  ];
}

function ratio(name: string, measured: number | undefined, reference: number | undefined, ok: (r: number) => boolean, target: string): TargetCheck {
  if (measured === undefined || reference === undefined || !(reference > 0) || !Number.isFinite(measured)) {
    return { name, verdict: 'SKIP', detail: 'not measured in this run' };
  }
  const r = measured / reference;
  return { name, verdict: ok(r) ? 'PASS' : 'FAIL', detail: `${r.toFixed(2)}× (target ${target})` };
}

function bound(name: string, measured: number | undefined, limit: number, show: (v: number) => string): TargetCheck {
  if (measured === undefined || !Number.isFinite(measured)) return { name, verdict: 'SKIP', detail: 'not measured in this run' };
  return { name, verdict: measured <= limit ? 'PASS' : 'FAIL', detail: `${show(measured)} (target ≤ ${limit})` };
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
