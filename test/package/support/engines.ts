import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One `npm warn EBADENGINE` block: the package npm warned about and the Node range it requires. */
export interface EngineWarning {
  readonly pkg: string;
  readonly requiredNode: string;
}

/** The EBADENGINE warnings in npm's stderr (npm 10 and 11 print one block of lines per package). */
export function engineWarnings(stderr: string): EngineWarning[] {
  const blocks = stderr.split(/npm warn EBADENGINE Unsupported engine \{/).slice(1);
  return blocks.map((block) => ({
    pkg: /package: '([^']+)'/.exec(block)?.[1] ?? '?',
    requiredNode: /required: \{[^}]*node: '([^']+)'/.exec(block)?.[1] ?? '?',
  }));
}

/** The package's `engines.node`, as package.json states it. */
export function packageNodeRange(root: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  const range = manifest.engines?.node;
  if (range === undefined) throw new Error('package.json has no engines.node');
  return range;
}

/**
 * Whether Node `version` (e.g. `v20.20.2`) satisfies `range`. Only the `>=MAJOR[.MINOR[.PATCH]]` form (optionally
 * with a leading `v`) is read: what this package and its dependencies state; anything else is an error here, so a
 * changed range cannot quietly pass.
 */
export function satisfiesNode(version: string, range: string): boolean {
  const match = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`unsupported engines range ${JSON.stringify(range)}: only >=X.Y.Z is read`);
  const want = match.slice(1).map((n) => Number(n ?? 0));
  const have = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== want[i]) return (have[i] ?? 0) > (want[i] as number);
  }
  return true;
}
