import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Source from '../src/index.js';

/**
 * The provider as users run it: the built package in dist/ (`npm run bench` builds it first).
 * Loaded from the TypeScript sources through tsx it would be measured slower than it is — tsx keeps
 * function names with a helper call on every closure it creates, which the published build does not.
 * `BENCH_PROVIDER_DIST=<dir>` measures another build instead (an earlier version's dist/, for a before/after).
 */
const entry = process.env.BENCH_PROVIDER_DIST ? pathToFileURL(join(process.env.BENCH_PROVIDER_DIST, 'index.js')) : new URL('../dist/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  throw new Error(`bench: ${fileURLToPath(entry)} is missing — run \`npm run build\` first (npm run bench does)`);
}
const built = (await import(entry.href)) as typeof Source;

export const EtcdLeaseProvider = built.EtcdLeaseProvider;
export type EtcdLeaseProvider = Source.EtcdLeaseProvider;

/**
 * `BENCH_BASELINE_DIST=<dir>`: an earlier build, measured in the same run beside this one (its own provider rows,
 * interleaved with the others), so a before/after compares figures taken seconds apart on the same machine.
 */
export async function loadBaseline(): Promise<typeof Source.EtcdLeaseProvider | undefined> {
  const dir = process.env.BENCH_BASELINE_DIST;
  if (!dir) return undefined;
  return ((await import(pathToFileURL(join(dir, 'index.js')).href)) as typeof Source).EtcdLeaseProvider;
}
