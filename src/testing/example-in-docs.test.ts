import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/testing-your-app.md shows the example that CI runs (test/package/testing-entry.test.ts runs
// examples/testing-your-app against the packed package): the two must not drift apart.
const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('docs/testing-your-app.md', () => {
  it.each(['worker.ts', 'chaos.test.ts'])('shows examples/testing-your-app/%s as it is', (file) => {
    expect(read('docs/testing-your-app.md')).toContain('```ts\n' + read(`examples/testing-your-app/${file}`).trimEnd() + '\n```');
  });
});
