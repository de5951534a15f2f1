/**
 * A small seeded generator (mulberry32): a fault run's choices — which faults, when, for how long, which member
 * or process they hit, and the workload's own (keys, how long a holder keeps a lease) — follow from one printed
 * seed, so a failing run can be replayed (as far as the timing of a real cluster allows).
 */
export interface Rng {
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** One of the keys of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)]!,
    weighted: (weights) => {
      const entries = Object.entries(weights) as Array<[keyof typeof weights, number]>;
      let roll = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [key, weight] of entries) if ((roll -= weight) < 0) return key;
      return entries[entries.length - 1]![0];
    },
  };
}

/** A seed for one part of the run (a process, the fault plan), derived from the run's. */
export function deriveSeed(seed: number, part: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(part + 1, 0xc2b2ae35)) >>> 0;
}
