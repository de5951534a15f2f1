import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ from the ground up, as docs/design.md (Architecture) lists them: a file may import files of its
 * own folder and of lower layers only. A folder is one unit; so is each top-level file.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['policy.ts', 'errors', 'operations', 'tenure', 'results.ts', 'lease-provider-contract.ts'],
  ['keys', 'clock'],
  ['config'],
  ['transport', 'metrics'],
  ['commit', 'reads', 'waiting'],
  ['leases', 'handles'],
  ['calls', 'core'],
  ['pubsub', 'provider-internals.ts'],
  ['provider.ts'],
  ['index.ts'],
  ['mastra'],
  ['testing'],
];

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*'(\.[^']+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(SRC, path)] : [];
  });
}

/** Each source file of src/ and the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(SRC, resolve(SRC, dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
    graph.set(file, targets.filter((t) => !t.startsWith('..')));
  }
  return graph;
}

const unitOf = (file: string): string => file.split('/')[0]!;
const layerOf = (unit: string): number => LAYERS.findIndex((layer) => layer.includes(unit));

describe('the layers of src/', () => {
  const graph = importGraph();

  it('every folder and top-level file of src/ has its layer', () => {
    const units = new Set([...graph.keys()].map(unitOf));
    expect([...units].filter((unit) => layerOf(unit) < 0)).toEqual([]);
  });

  it('no import points up or sideways: only into its own folder or a lower layer', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => unitOf(t) !== unitOf(file) && layerOf(unitOf(t)) >= layerOf(unitOf(file))).map((t) => `${file} -> ${t}`),
    );
    expect(upward).toEqual([]);
  });

  it('no files import each other in a circle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') return void circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });
});
