import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as Source from '../src/index.js';

/**
 * The provider as users run it: the built package in dist/ (`npm run bench` builds it first).
 * Loaded from the TypeScript sources through tsx it would be measured slower than it is — tsx keeps
 * function names with a helper call on every closure it creates, which the published build does not.
 */
const entry = new URL('../dist/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  throw new Error('bench: dist/index.js is missing — run `npm run build` first (npm run bench does)');
}
const built = (await import(entry.href)) as typeof Source;

export const EtcdLeaseProvider = built.EtcdLeaseProvider;
export type EtcdLeaseProvider = Source.EtcdLeaseProvider;
