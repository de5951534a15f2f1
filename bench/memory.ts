/** One reading of this process's memory, after a full GC when `--expose-gc` is on. */
export interface MemorySample {
  label: string;
  rssMb: number;
  heapUsedMb: number;
  /** Buffers and other memory outside the JS heap (gRPC frames, encoded requests). */
  externalMb: number;
  /** Whether a GC ran first; without one, heapUsed includes garbage and the growth reads high. */
  afterGc: boolean;
}

const MB = 1024 * 1024;

export function sampleMemory(label: string): MemorySample {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { rss, heapUsed, external } = process.memoryUsage();
  return { label, rssMb: rss / MB, heapUsedMb: heapUsed / MB, externalMb: external / MB, afterGc: gc !== undefined };
}

export interface MemoryGrowth {
  fromMb: number;
  toMb: number;
  growthMb: number;
  peakMb: number;
  heapFromMb: number;
  heapToMb: number;
  afterGc: boolean;
}

/**
 * RSS from the first sample (before the provider existed) to the last. RSS rarely shrinks (V8 and
 * malloc keep freed pages), so growth that stops between rounds is a high-water mark; growth that
 * keeps rising round after round is a leak. The per-sample series in the JSON tells which.
 */
export function memoryGrowth(samples: readonly MemorySample[]): MemoryGrowth | undefined {
  if (samples.length < 2) return undefined;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  return {
    fromMb: first.rssMb,
    toMb: last.rssMb,
    growthMb: last.rssMb - first.rssMb,
    peakMb: Math.max(...samples.map((m) => m.rssMb)),
    heapFromMb: first.heapUsedMb,
    heapToMb: last.heapUsedMb,
    afterGc: first.afterGc,
  };
}

export function formatGrowth(g: MemoryGrowth): string {
  const mb = (n: number) => `${n.toFixed(0)} MB`;
  return (
    `process RSS across provider phases: ${mb(g.fromMb)} → ${mb(g.toMb)} (${g.growthMb >= 0 ? '+' : ''}${mb(g.growthMb)}, peak ${mb(g.peakMb)}); ` +
    `JS heap ${mb(g.heapFromMb)} → ${mb(g.heapToMb)}${g.afterGc ? ' (after GC)' : ' (no --expose-gc: heap includes garbage)'}`
  );
}
