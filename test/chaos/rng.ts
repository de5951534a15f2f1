export { createRng, deriveSeed, type Rng } from '../../safety-checker/composed/rng.js';

/** The seed of this run: CHAOS_SEED when set (to replay), else a fresh one. */
export function runSeed(): number {
  return seedFromEnv('CHAOS_SEED');
}

/** The seed named by environment variable `name` when set (to replay), else a fresh one. */
export function seedFromEnv(name: string): number {
  const given = process.env[name];
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`${name} must be a non-negative integer, got '${given}'`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 31);
}
